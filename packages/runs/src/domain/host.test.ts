import { describe, expect, it } from "vitest";
import { canonicalHost, parseHostRule, parseHostRules, ruleMatches } from "./host.js";

describe("canonical hosts", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["[::ffff:127.0.0.1]", "127.0.0.1"],
    ["::ffff:7f00:1", "127.0.0.1"],
    ["0:0:0:0:0:ffff:127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
    ["[FD00:EC2:0::254]", "fd00:ec2::254"],
  ])("reads %s as the address %s", (host, address) => {
    expect(canonicalHost(host)).toEqual({ name: null, addresses: [address] });
  });

  it("folds case, a trailing dot and Unicode of names, and reads localhost as loopback", () => {
    expect(canonicalHost("Shop.Example.")).toEqual({ name: "shop.example", addresses: [] });
    expect(canonicalHost("bücher.example")).toEqual({ name: "xn--bcher-kva.example", addresses: [] });
    expect(canonicalHost("LocalHost.")).toEqual({ name: "localhost", addresses: ["127.0.0.1", "::1"] });
    expect(canonicalHost("")).toBeUndefined();
    expect(canonicalHost("exa mple")).toBeUndefined();
  });
});

describe("host rules", () => {
  it("matches names with their subdomains, addresses in any spelling, and CIDRs (IPv4-mapped too)", () => {
    const [name, address, cidr, mapped] = parseHostRules(
      "example.com, [::ffff:7f00:1], 10.0.0.0/8, ::ffff:192.168.0.0/112",
    );
    expect(name && ruleMatches(name, "api.example.com", [])).toBe(true);
    expect(name && ruleMatches(name, "notexample.com", [])).toBe(false);
    expect(address && ruleMatches(address, null, ["127.0.0.1"])).toBe(true);
    expect(cidr && ruleMatches(cidr, null, ["10.9.8.7"])).toBe(true);
    expect(cidr && ruleMatches(cidr, null, ["::1"])).toBe(false);
    expect(mapped && ruleMatches(mapped, null, ["192.168.3.4"])).toBe(true);
  });

  it("refuses an entry that is no host or CIDR", () => {
    expect(() => parseHostRule("10.0.0.0/40")).toThrow(/not a CIDR range/);
    expect(() => parseHostRule("a b")).toThrow(/not a host name, IP address or CIDR range/);
  });
});
