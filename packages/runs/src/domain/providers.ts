import {
  canonicalHost,
  type HostRule,
  hostOfUrl,
  parseHostRule,
  reachedAddress,
  ruleMatches,
} from "./host.js";

/** Payment providers protected by default: a request to one of them (or a subdomain) needs approval. */
export const DEFAULT_PROTECTED_PROVIDER_DOMAINS = [
  "stripe.com",
  "js.stripe.com",
  "paypal.com",
  "adyen.com",
  "braintreegateway.com",
  "checkout.com",
  "klarna.com",
  "squareup.com",
  "mollie.com",
] as const;

function normalizeHost(host: string): string {
  const trimmed = host.trim().toLowerCase();
  const canonical = canonicalHost(trimmed);
  if (canonical === undefined) return trimmed.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  return canonical.name ?? canonical.addresses[0] ?? trimmed;
}

/**
 * Parses `VETTED_PROTECTED_PROVIDER_DOMAINS` (comma-separated hosts or IP literals, in any spelling; each
 * is kept in canonical form). Unset or blank means the defaults.
 */
export function parseProtectedDomains(value: string | undefined): string[] {
  const list = (value ?? "")
    .split(",")
    .map(normalizeHost)
    .filter((part) => part.length > 0);
  return list.length > 0 ? list : [...DEFAULT_PROTECTED_PROVIDER_DOMAINS];
}

/**
 * The protected domain a host (canonical name and known addresses) falls under, if any: a listed name
 * matches itself and its subdomains, a listed IP address matches that address in any spelling (and
 * `localhost` for a loopback address), and the address a connection reaches (`0.0.0.0` reaches loopback).
 */
export function matchProtectedHost(
  name: string | null,
  known: readonly string[],
  domains: readonly string[],
): string | undefined {
  const addresses = known.map(reachedAddress);
  for (const domain of domains) {
    const rule = ruleOf(domain);
    if (rule !== null && ruleMatches(rule, name, addresses)) return normalizeHost(domain);
  }
  return undefined;
}

/** Each protected domain parsed once (the list is configuration: a handful of entries, checked per request). */
const parsedRules = new Map<string, HostRule | null>();

function ruleOf(domain: string): HostRule | null {
  let rule = parsedRules.get(domain);
  if (rule === undefined) {
    try {
      rule = parseHostRule(domain);
    } catch {
      rule = null; // an entry that is no host matches nothing
    }
    if (parsedRules.size < 1_000) parsedRules.set(domain, rule);
  }
  return rule;
}

/**
 * The protected domain a URL would reach, if any: the host equals a listed domain or is a subdomain of it;
 * IP literals match the same address in any spelling (IPv4-mapped IPv6, decimal, octal, hex), and
 * `localhost` matches the loopback addresses. A URL that does not parse matches nothing. The engine also
 * checks the addresses a name resolves to right before it connects.
 */
export function matchProtectedDomain(url: string, domains: readonly string[]): string | undefined {
  const target = hostOfUrl(url);
  if (target === undefined) return undefined;
  return matchProtectedHost(target.host.name, target.host.addresses, domains);
}
