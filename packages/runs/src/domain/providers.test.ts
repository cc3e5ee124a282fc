import { describe, expect, it } from "vitest";
import {
  DEFAULT_PROTECTED_PROVIDER_DOMAINS,
  matchProtectedDomain,
  parseProtectedDomains,
} from "./providers.js";

describe("protected payment provider domains", () => {
  it("defaults to the major providers when the variable is unset or blank", () => {
    expect(parseProtectedDomains(undefined)).toEqual([...DEFAULT_PROTECTED_PROVIDER_DOMAINS]);
    expect(parseProtectedDomains(" , ")).toContain("stripe.com");
  });

  it("parses a comma-separated list of hosts and IP literals", () => {
    expect(parseProtectedDomains(" Pay.Example.com , 127.0.0.2,[::1]")).toEqual([
      "pay.example.com",
      "127.0.0.2",
      "::1",
    ]);
  });

  it("matches a domain and its subdomains but not look-alikes", () => {
    const list = parseProtectedDomains(undefined);
    expect(matchProtectedDomain("https://api.stripe.com/v1/charges", list)).toBe("stripe.com");
    expect(matchProtectedDomain("https://STRIPE.com./x", list)).toBe("stripe.com");
    expect(matchProtectedDomain("https://notstripe.com/", list)).toBeUndefined();
    expect(matchProtectedDomain("https://stripe.com.evil.test/", list)).toBeUndefined();
  });

  it("matches IP literals exactly", () => {
    expect(matchProtectedDomain("http://127.0.0.2:8080/pay", ["127.0.0.2"])).toBe("127.0.0.2");
    expect(matchProtectedDomain("http://127.0.0.1:8080/pay", ["127.0.0.2"])).toBeUndefined();
    expect(matchProtectedDomain("http://[::1]:80/", ["::1"])).toBe("::1");
  });

  it("matches nothing for a URL that does not parse", () => {
    expect(matchProtectedDomain("not a url", ["stripe.com"])).toBeUndefined();
  });
});

describe("protected IP literals in any spelling", () => {
  const list = parseProtectedDomains("127.0.0.1");

  it.each([
    "http://[::ffff:127.0.0.1]:9/pay",
    "http://[::ffff:7f00:1]:9/pay",
    "http://[0:0:0:0:0:ffff:127.0.0.1]:9/pay",
    "http://localhost:9/pay",
    "http://LOCALHOST.:9/pay",
    "http://2130706433:9/pay",
    "http://0x7f.1:9/pay",
    "http://0177.0.0.1:9/pay",
    "http://127.1:9/pay",
  ])("gates %s as 127.0.0.1", (url) => {
    expect(matchProtectedDomain(url, list)).toBe("127.0.0.1");
  });

  it("keeps a protected entry written in another spelling in canonical form", () => {
    expect(parseProtectedDomains("[::ffff:7f00:1], Bücher.example.")).toEqual([
      "127.0.0.1",
      "xn--bcher-kva.example",
    ]);
    expect(matchProtectedDomain("https://pay.BÜCHER.example/x", ["bücher.example"])).toBe(
      "xn--bcher-kva.example",
    );
  });
});
