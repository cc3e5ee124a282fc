import { NestingTooDeepError } from "@vetted/store";
import { describe, expect, it } from "vitest";
import { crashReasonOf, guardOutcome, isTransientDbError } from "./step-guard.js";

describe("what a run's unexpected error comes to", () => {
  it("calls a too-deep value or the stack it overflowed nesting_too_deep, anything else internal_error", () => {
    expect(crashReasonOf(new NestingTooDeepError("x", 64))).toBe("nesting_too_deep");
    expect(crashReasonOf(new RangeError("Maximum call stack size exceeded"))).toBe("nesting_too_deep");
    expect(crashReasonOf(new TypeError("x is not a function"))).toBe("internal_error");
  });

  it("leaves a busy or locked database to the lease instead of failing the run", () => {
    const busy = Object.assign(new Error("SQLITE_BUSY: database is locked"), { code: "SQLITE_BUSY" });
    expect(isTransientDbError(new Error("Failed query", { cause: busy }))).toBe(true);
    expect(isTransientDbError(new RangeError("Maximum call stack size exceeded"))).toBe(false);
  });

  it("refuses a completed step whose vars nest deeper than the limit", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(() => guardOutcome({ kind: "completed", vars: { v: deep } }, "s")).toThrow(NestingTooDeepError);
    expect(guardOutcome({ kind: "completed", vars: { v: [[1]] } }, "s")).toEqual({
      kind: "completed",
      vars: { v: [[1]] },
    });
  });
});
