import { lookup as dnsLookup } from "node:dns/promises";
import { createRequire } from "node:module";
import type { LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";
import {
  canonicalAddress,
  type HostRule,
  hostOfUrl,
  parseHostRules,
  reachedAddress,
  ruleMatches,
} from "../domain/host.js";
import { matchProtectedHost } from "../domain/providers.js";

/** Resolves a name to every address it has (the port the outbound policy resolves through). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Hosts no `http` step may reach whatever the configuration: link-local and cloud metadata addresses. */
export const DEFAULT_DENIED_HOSTS = [
  "169.254.0.0/16",
  "fe80::/10",
  "169.254.169.254",
  "fd00:ec2::254",
  "metadata.google.internal",
] as const;

/** How the outbound policy is configured. */
export interface OutboundPolicyOptions {
  /** When non-empty, only these hosts and CIDRs may be reached (`VETTED_HTTP_ALLOW`). */
  allow?: readonly string[] | undefined;
  /** Hosts and CIDRs never reached, on top of {@link DEFAULT_DENIED_HOSTS} (`VETTED_HTTP_DENY`). */
  deny?: readonly string[] | undefined;
  /** Name resolution; default `dns.promises.lookup` with every address. */
  lookup?: HostLookup | undefined;
}

/** What the policy decided for one URL, judged on the addresses the request will connect to. */
export type OutboundDecision =
  /** Not an http(s) URL with a host: the step refuses it itself. */
  | { kind: "unchecked" }
  | { kind: "denied"; host: string; rule: string }
  | { kind: "unresolved"; host: string; message: string }
  /**
   * Connect to exactly `address` (the Host header and TLS name stay the URL's); `protectedDomain` names
   * the payment provider it reaches, when it is one (the step then needs approval first).
   */
  | { kind: "allowed"; host: string; address: string; family: 4 | 6; protectedDomain: string | undefined };

const defaultLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function isUnspecified(address: string): boolean {
  return ipaddr.process(address).range() === "unspecified";
}

function isLoopback(address: string): boolean {
  return ipaddr.process(address).range() === "loopback";
}

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) {
      const a = canonicalAddress(info.address);
      if (a !== undefined) out.add(a);
    }
  }
  return out;
}

/**
 * Creates the outbound policy of `http` steps: hosts in canonical form, resolved once, every candidate
 * address checked (deny rules win; when an allow list is set only it is allowed; link-local, cloud metadata
 * and the server's own port on any address of this machine are denied by default), then the connection pinned to
 * the checked address so a second DNS answer cannot redirect it.
 * @throws Error naming a bad allow/deny entry
 */
export function createOutboundPolicy(options: OutboundPolicyOptions = {}) {
  const deny: HostRule[] = parseHostRules([...DEFAULT_DENIED_HOSTS, ...(options.deny ?? [])]);
  const allow: HostRule[] = parseHostRules(options.allow);
  const lookup = options.lookup ?? defaultLookup;
  let self: { address: string; port: number } | undefined;

  /**
   * Whether `address:port` may be this server: its port on its own address, on an unspecified address, or
   * on any address of this machine (every loopback address, `[::1]` as well as `127.0.0.1`, and every
   * interface address) — the same listener can answer on several of them.
   */
  function isSelf(address: string, port: number): boolean {
    if (self === undefined || port !== self.port) return false;
    if (address === self.address || isUnspecified(address)) return true;
    return isLoopback(address) || localAddresses().has(address);
  }

  function judge(name: string | null, addresses: string[], port: number): { rule: string } | undefined {
    const denied = deny.find((r) => ruleMatches(r, name, addresses));
    if (denied !== undefined) return { rule: denied.text };
    if (addresses.some((a) => isSelf(a, port))) return { rule: "the server's own address and port" };
    if (allow.length === 0) return undefined;
    const allowedByName = allow.some((r) => r.kind === "name" && ruleMatches(r, name, []));
    const allowedByAddress = addresses.every((a) => allow.some((r) => ruleMatches(r, null, [a])));
    return allowedByName || allowedByAddress ? undefined : { rule: "not in VETTED_HTTP_ALLOW" };
  }

  /** The addresses a connection to the host reaches (an unspecified address reaches loopback). */
  async function resolve(name: string | null, known: string[]): Promise<string[]> {
    if (name === null || known.length > 0) return known.map(reachedAddress);
    const answers = await lookup(name);
    return answers
      .map((a) => canonicalAddress(a.address))
      .filter((a): a is string => a !== undefined)
      .map(reachedAddress);
  }

  /**
   * Decides for one URL: resolves its host once and judges every address. `protectedDomains` are the
   * payment providers whose requests need approval (matched by name and by every resolved address).
   */
  async function decide(url: string, protectedDomains: readonly string[]): Promise<OutboundDecision> {
    const target = hostOfUrl(url);
    if (target === undefined || !/^https?:$/.test(new URL(url).protocol)) return { kind: "unchecked" };
    const { host, port } = target;
    const shown = host.name ?? host.addresses[0] ?? url;
    // A denied name is refused before any DNS query is made for it.
    const deniedName = deny.find((r) => r.kind === "name" && ruleMatches(r, host.name, []));
    if (deniedName !== undefined) return { kind: "denied", host: shown, rule: deniedName.text };
    let addresses: string[];
    try {
      addresses = await resolve(host.name, host.addresses);
    } catch (err) {
      return { kind: "unresolved", host: shown, message: err instanceof Error ? err.message : String(err) };
    }
    const first = addresses[0];
    if (first === undefined) return { kind: "unresolved", host: shown, message: "the name has no address" };
    const denied = judge(host.name, addresses, port);
    if (denied !== undefined) return { kind: "denied", host: shown, rule: denied.rule };
    return {
      kind: "allowed",
      host: shown,
      address: first,
      family: first.includes(":") ? 6 : 4,
      protectedDomain: matchProtectedHost(host.name, addresses, protectedDomains),
    };
  }

  return {
    decide,
    /** Tells the policy where this server listens, so `http` steps cannot call its own API. */
    setServerAddress(address: string, port: number): void {
      const a = canonicalAddress(address);
      self = a === undefined ? undefined : { address: a, port };
    },
  };
}

/** The outbound policy of a runs engine. */
export type OutboundPolicy = ReturnType<typeof createOutboundPolicy>;

let undici: typeof import("undici") | undefined;

/** undici's `Agent`, loaded on the first outbound request rather than when the package is imported. */
function agentClass(): typeof import("undici").Agent {
  undici ??= createRequire(import.meta.url)("undici") as typeof import("undici");
  return undici.Agent;
}

/**
 * A fetch whose connections go to `address` only: the dispatcher answers every lookup with the address
 * the policy checked. The URL (so the Host header and the TLS server name) stays the original.
 */
export function pinnedFetch(
  base: typeof globalThis.fetch,
  address: string,
  family: 4 | 6,
): { fetch: typeof globalThis.fetch; close(): Promise<void> } {
  const pinned: LookupFunction = (_hostname, opts, callback) => {
    if (opts.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const Agent = agentClass();
  const agent = new Agent({ connect: { lookup: pinned } });
  const fetch: typeof globalThis.fetch = (input, init) =>
    base(input, Object.assign({}, init, { dispatcher: agent }));
  return { fetch, close: () => agent.destroy() };
}
