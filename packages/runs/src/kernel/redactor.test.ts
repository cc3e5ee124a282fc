import { describe, expect, it } from "vitest";
import { createRedactor } from "./redactor.js";

const SECRET = "hunter2 s3cr3t/Pa55+wörd";
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");

describe("the redactor", () => {
  const r = createRedactor([SECRET, "740391"]);

  it("replaces a value and its JSON, URL and form encodings inside longer text", () => {
    expect(r.redactText(`pw is ${SECRET}!`)).toBe("pw is [redacted]!");
    const quoted = 'pa"ss\\word';
    expect(createRedactor([quoted]).redactText(JSON.stringify({ pw: quoted }))).toBe('{"pw":"[redacted]"}');
    expect(r.redactText(`?pw=${encodeURIComponent(SECRET)}&x=1`)).toBe("?pw=[redacted]&x=1");
    const lowerHex = encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    expect(r.redactText(`?pw=${lowerHex}`)).toBe("?pw=[redacted]");
    const form = new URLSearchParams({ pw: SECRET }).toString();
    expect(form).toContain("+");
    expect(r.redactText(form)).toBe("pw=[redacted]");
  });

  it("replaces base64 of a value, standard or URL-safe, padded or not, alone or inside a larger blob", () => {
    for (const encoded of [b64(SECRET), b64url(SECRET), b64(SECRET).replace(/=+$/, "")]) {
      expect(r.redactText(`token ${encoded} end`)).toBe("token [redacted] end");
    }
    for (const prefix of ["", "a", "ab", "abc"]) {
      const blob = b64(`user:${prefix}${SECRET}:tail`);
      expect(r.redactText(`Authorization: Basic ${blob}`)).toBe("Authorization: Basic [redacted]");
      expect(r.reveals({ header: b64url(`${prefix}${SECRET}`) })).toBe(true);
    }
    expect(r.redactText(b64("740391"))).toBe("[redacted]");
  });

  it("finds a value in any letter case, as a URL parser folds a host", () => {
    const token = "Tok3nABCdef";
    const cased = createRedactor([token]);
    for (const text of [
      `getaddrinfo ENOTFOUND ${token.toLowerCase()}.example.test`,
      `https://${token.toUpperCase()}.example.test/x`,
    ]) {
      expect(cased.redactText(text)).not.toMatch(/tok3nabcdef/i);
      expect(cased.reveals({ message: text })).toBe(true);
    }
    expect(createRedactor(["Ab"]).redactText("aB")).toBe("[redacted]");
  });

  it("leaves unrelated text and base64 alone, and redacting twice changes nothing", () => {
    const text = `plain ${b64("something else entirely")} 7403 91`;
    expect(r.redactText(text)).toBe(text);
    const once = r.redactText(`a ${SECRET} b`);
    expect(r.redactText(once)).toBe(once);
    const dact = createRedactor(["dact"]);
    expect(dact.redactText("[redacted] dact")).toBe("[redacted] [redacted]");
  });

  it("finds values deep inside JSON values, in keys and in numbers", () => {
    expect(r.reveals({ a: [{ b: `x${SECRET}y` }] })).toBe(true);
    expect(r.reveals({ [SECRET]: 1 })).toBe(true);
    expect(r.reveals(740391)).toBe(true);
    expect(r.reveals({ a: 1, b: "740" })).toBe(false);
    expect(r.redactDeep({ m: [`got ${SECRET}`], n: 3 })).toEqual({ m: ["got [redacted]"], n: 3 });
  });

  it("redacts values shorter than 4 characters only where a whole string or number equals them", () => {
    const short = createRedactor(["12", "ab"]);
    expect(short.redactText("12")).toBe("[redacted]");
    expect(short.redactText("ab")).toBe("[redacted]");
    expect(short.redactText("step 12 took 120 ms; tab")).toBe("step 12 took 120 ms; tab");
    expect(short.reveals(12)).toBe(true);
    expect(short.reveals({ code: "12" })).toBe(true);
    expect(short.reveals(120)).toBe(false);
    expect(short.redactText(b64("ab"))).toBe(b64("ab"));
  });

  it("does nothing without values, and ignores empty ones", () => {
    const none = createRedactor(["", "[redacted]"]);
    expect(none.redactText("anything")).toBe("anything");
    expect(none.reveals("anything")).toBe(false);
  });
});
