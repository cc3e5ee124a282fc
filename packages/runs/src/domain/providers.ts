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
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/**
 * Parses `VETTED_PROTECTED_PROVIDER_DOMAINS` (comma-separated hosts or IP literals). Unset or blank
 * means the defaults.
 */
export function parseProtectedDomains(value: string | undefined): string[] {
  const list = (value ?? "")
    .split(",")
    .map(normalizeHost)
    .filter((part) => part.length > 0);
  return list.length > 0 ? list : [...DEFAULT_PROTECTED_PROVIDER_DOMAINS];
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The protected domain a URL would reach, if any: the host equals a listed domain or is a subdomain of it.
 * IP literals match exactly. A URL that does not parse matches nothing.
 */
export function matchProtectedDomain(url: string, domains: readonly string[]): string | undefined {
  let host: string;
  try {
    host = normalizeHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
  for (const domain of domains) {
    const d = normalizeHost(domain);
    if (host === d) return d;
    if (!IPV4.test(d) && !d.includes(":") && host.endsWith(`.${d}`)) return d;
  }
  return undefined;
}
