import { describe, expect, it } from "vitest";
import { RegexInvalidError } from "./errors.js";
import { compileUserRegex, userRegexProblem } from "./safe-regex.js";

describe("user regular expressions", () => {
  it("matches like RegExp.test for ordinary patterns and flags", () => {
    expect(compileUserRegex("^inv-\\d+").test("inv-42.pdf")).toBe(true);
    expect(compileUserRegex("receipt").test("My Receipt.pdf")).toBe(false);
    expect(compileUserRegex("receipt", "i").test("My Receipt.pdf")).toBe(true);
  });

  it("runs a catastrophic-backtracking pattern in linear time", () => {
    const regex = compileUserRegex("^(a+)+$");
    const started = performance.now();
    expect(regex.test(`${"a".repeat(28)}!`)).toBe(false);
    expect(regex.test(`${"a".repeat(200_000)}!`)).toBe(false);
    // A backtracking engine takes seconds on 28 a's; RE2 answers both at once.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("refuses backreferences, lookarounds, unknown flags and over-long patterns with REGEX_INVALID", () => {
    for (const [pattern, flags] of [
      ["(a)\\1", ""],
      ["a(?=b)", ""],
      ["a", "y"],
      ["a".repeat(1_001), ""],
    ]) {
      expect(() => compileUserRegex(pattern ?? "", flags)).toThrow(RegexInvalidError);
    }
    expect(userRegexProblem("(")).toMatch(/not accepted/);
    expect(userRegexProblem("ok")).toBeNull();
  });
});
