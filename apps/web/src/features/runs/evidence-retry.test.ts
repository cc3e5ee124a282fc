import { describe, expect, it } from "vitest";
import { attemptUrl, retryDelay } from "./evidence-retry.js";

describe("retryDelay", () => {
  it("doubles the wait and stops after five failures", () => {
    expect([1, 2, 3, 4, 5].map(retryDelay)).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(retryDelay(6)).toBeUndefined();
  });
});

describe("attemptUrl", () => {
  it("keeps the first URL and makes each retry's distinct", () => {
    expect(attemptUrl("/a.jpg", 0)).toBe("/a.jpg");
    expect(attemptUrl("/a.jpg", 2)).toBe("/a.jpg?try=2");
    expect(attemptUrl("/a.jpg?x=1", 1)).toBe("/a.jpg?x=1&try=1");
  });
});
