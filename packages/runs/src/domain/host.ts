import ipaddr from "ipaddr.js";

/**
 * A host in canonical form: every spelling of one IP address (decimal, octal or hex IPv4, IPv4-mapped
 * IPv6, zero-padded IPv6) becomes one address; names are lower-case ASCII (punycode) without a trailing
 * dot. `localhost` (and `*.localhost`) stand for the loopback addresses.
 */
export interface CanonicalHost {
  /** The DNS name, or null for an IP literal. */
  name: string | null;
  /** The addresses the host is known to stand for without DNS (an IP literal, or loopback for localhost). */
  addresses: string[];
}

/** The loopback addresses `localhost` stands for. */
export const LOOPBACK_ADDRESSES = ["127.0.0.1", "::1"] as const;

/** One address in canonical form: IPv4 dotted quad, IPv4-mapped IPv6 as IPv4, IPv6 compressed. */
export function canonicalAddress(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) return undefined;
  return ipaddr.process(bare).toString();
}

/**
 * The address a connection to `address` (canonical) reaches: the unspecified addresses (`0.0.0.0`, which
 * `http://0/` also spells, and `::`) connect to the loopback address of their family; every other address
 * reaches itself.
 */
export function reachedAddress(address: string): string {
  if (address === "0.0.0.0") return "127.0.0.1";
  if (address === "::") return "::1";
  return address;
}

/**
 * Canonicalizes a host as found in a URL or a configuration entry (brackets, case, trailing dot,
 * Unicode, and every IPv4 spelling the WHATWG URL parser accepts). Undefined for text that is no host.
 */
export function canonicalHost(host: string): CanonicalHost | undefined {
  const trimmed = host.trim();
  if (trimmed.length === 0) return undefined;
  const bare = trimmed.replace(/^\[|\]$/g, "");
  let hostname: string;
  try {
    // The WHATWG URL parser folds case, punycodes Unicode and reads decimal/octal/hex IPv4.
    hostname = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  const name = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (name.length === 0) return undefined;
  // The URL parser already spelled any IPv4 as a dotted quad: only that shape, or IPv6, is an address
  // (asking ipaddr about every name would cost a thrown error per name).
  const address = name.includes(":") || /^\d+(\.\d+){3}$/.test(name) ? canonicalAddress(name) : undefined;
  if (address !== undefined) return { name: null, addresses: [address] };
  if (name === "localhost" || name.endsWith(".localhost")) {
    return { name, addresses: [...LOOPBACK_ADDRESSES] };
  }
  return { name, addresses: [] };
}

/** The canonical host of a URL, or undefined when the URL does not parse. */
export function hostOfUrl(url: string): { host: CanonicalHost; port: number } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = canonicalHost(parsed.hostname);
  if (host === undefined) return undefined;
  const port =
    parsed.port === ""
      ? parsed.protocol === "https:"
        ? 443
        : parsed.protocol === "http:"
          ? 80
          : 0
      : Number(parsed.port);
  return { host, port };
}

/** One entry of a host list (`VETTED_HTTP_ALLOW`, `VETTED_HTTP_DENY`, protected providers). */
export type HostRule =
  | { kind: "name"; text: string; name: string }
  | { kind: "address"; text: string; address: string }
  | { kind: "cidr"; text: string; range: [ipaddr.IPv4 | ipaddr.IPv6, number] };

/**
 * Parses one host-list entry: a CIDR (`10.0.0.0/8`, `fd00::/8`), an IP address in any spelling, or a
 * name (matching itself and its subdomains). Throws an Error saying what is wrong with the entry.
 */
export function parseHostRule(entry: string): HostRule {
  const text = entry.trim();
  if (text.includes("/")) {
    try {
      const [addr, bits] = ipaddr.parseCIDR(text.replace(/^\[|\]$/g, ""));
      const range: [ipaddr.IPv4 | ipaddr.IPv6, number] =
        addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
          ? [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96]
          : [addr, bits];
      return { kind: "cidr", text, range };
    } catch {
      throw new Error(`"${text}" is not a CIDR range (write it like 10.0.0.0/8 or fd00::/8)`);
    }
  }
  const host = canonicalHost(text);
  if (host === undefined) throw new Error(`"${text}" is not a host name, IP address or CIDR range`);
  if (host.name === null) return { kind: "address", text, address: host.addresses[0] ?? text };
  return { kind: "name", text, name: host.name };
}

/** Parses a comma-separated host list; throws an Error naming the first bad entry. */
export function parseHostRules(value: string | readonly string[] | undefined): HostRule[] {
  const parts = typeof value === "string" ? value.split(",") : [...(value ?? [])];
  return parts
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
    .map(parseHostRule);
}

function inRange(address: string, range: [ipaddr.IPv4 | ipaddr.IPv6, number]): boolean {
  const parsed = ipaddr.process(address);
  return parsed.kind() === range[0].kind() && parsed.match(range);
}

/** Whether `rule` covers a host of this name (itself or a subdomain) or any of these addresses. */
export function ruleMatches(rule: HostRule, name: string | null, addresses: readonly string[]): boolean {
  if (rule.kind === "name") return name !== null && (name === rule.name || name.endsWith(`.${rule.name}`));
  if (rule.kind === "address") return addresses.includes(rule.address);
  return addresses.some((a) => inRange(a, rule.range));
}
