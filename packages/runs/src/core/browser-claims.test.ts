import { describe, expect, it } from "vitest";
import type { Step } from "../domain/steps.js";
import { needsBrowserNext } from "./browser-claims.js";

const steps = (...list: unknown[]) => list as Step[];
const nav = { id: "open", type: "navigate", url: "http://127.0.0.1/" };

describe("needsBrowserNext", () => {
  it("looks past the steps a claim runs in its own transaction to the first that takes time", () => {
    expect(needsBrowserNext(steps({ id: "s", type: "set", vars: { a: 1 } }, nav), 0)).toBe(true);
    expect(needsBrowserNext(steps({ id: "h", type: "http", method: "GET", url: "http://x/" }, nav), 0)).toBe(
      false,
    );
    expect(needsBrowserNext(steps({ id: "w", type: "wait", seconds: 1 }, nav), 1)).toBe(true);
    expect(needsBrowserNext(steps({ id: "s", type: "set", vars: {} }), 0)).toBe(false);
  });

  it("says no when a gate comes first (the run pauses there), and knows the browser form of assert", () => {
    expect(needsBrowserNext(steps({ id: "g", type: "approval_gate", prompt: "ok?" }, nav), 0)).toBe(false);
    expect(needsBrowserNext(steps({ id: "a", type: "assert", url: "/account" }), 0)).toBe(true);
    expect(needsBrowserNext(steps({ id: "a", type: "assert", expect: { eq: 1 }, value: 1 }, nav), 0)).toBe(
      true,
    );
  });
});
