import { COMPARISON_ERROR_CODES, ComparisonError, query, UnknownGroupError } from "@vetted/comparison";
import { describe, expect, it } from "vitest";
import { describeError, SERVER_ERROR_CODES, statusForCode } from "./errors.js";

describe("the one code → status mapping", () => {
  it("answers every comparison code with 422", () => {
    for (const code of COMPARISON_ERROR_CODES) expect(statusForCode(code), code).toBe(422);
  });

  it("answers every server code with a 4xx, except INTERNAL_ERROR and INTEGRATION_NOT_CONFIGURED", () => {
    for (const code of SERVER_ERROR_CODES) {
      const status = statusForCode(code);
      const ceiling = code === "INTERNAL_ERROR" ? 501 : code === "INTEGRATION_NOT_CONFIGURED" ? 504 : 500;
      expect(status >= 400 && status < ceiling, code).toBe(true);
    }
    // An integration that is off is the server's state, not the caller's mistake: 503, as the issue asks.
    expect(statusForCode("INTEGRATION_NOT_CONFIGURED")).toBe(503);
  });

  it("describes a comparison error thrown by the package with its code and details", () => {
    let thrown: unknown;
    try {
      query({ $schema: "x", comparisonVersion: 1, filters: [], comparisons: [] }, { groups: ["host:mcp"] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnknownGroupError);
    expect(thrown).toBeInstanceOf(ComparisonError);
    expect(describeError(thrown)).toEqual({
      code: "UNKNOWN_GROUP",
      message: 'There is no filter group "host"; known groups: (none).',
      details: { id: "host", known: [] },
    });
  });
});
