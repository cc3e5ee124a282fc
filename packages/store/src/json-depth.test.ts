import { describe, expect, it } from "vitest";
import { NestingTooDeepError } from "./errors.js";
import { assertJsonDepth, exceedsJsonDepth, exceedsJsonTextDepth, MAX_JSON_DEPTH } from "./json-depth.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe("JSON depth limits", () => {
  it("accepts a value exactly at the limit and refuses one level more", () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth("scalar", 0)).toBe(false);
    expect(exceedsJsonDepth([], 0)).toBe(true);
  });

  it("measures 100,000 levels without overflowing the stack", () => {
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
    expect(exceedsJsonTextDepth(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toBe(true);
  });

  it("ignores brackets inside strings and escaped quotes when scanning text", () => {
    const text = JSON.stringify({ a: '[[[[\\"[[[[', b: [[1]] });
    expect(exceedsJsonTextDepth(text, 3)).toBe(false);
    expect(exceedsJsonTextDepth(text, 2)).toBe(true);
  });

  it("throws a typed NESTING_TOO_DEEP error naming where", () => {
    expect(() => assertJsonDepth(nested(70), "params")).toThrow(NestingTooDeepError);
    try {
      assertJsonDepth(nested(70), "params");
    } catch (err) {
      expect((err as NestingTooDeepError).code).toBe("NESTING_TOO_DEEP");
      expect((err as Error).message).toContain("params");
    }
  });
});
