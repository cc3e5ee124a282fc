import { describe, expect, it } from "vitest";
import { fieldErrors, issuesOf } from "./field-errors.js";

describe("field errors", () => {
  it("maps pointers to top-level fields, first message wins", () => {
    expect(
      fieldErrors([
        { pointer: "/workers", message: "too big" },
        { pointer: "/limits/max_file_bytes", message: "negative" },
        { pointer: "/workers", message: "second" },
        { pointer: "", message: "body" },
      ]),
    ).toEqual({ workers: "too big", limits: "negative", "": "body" });
  });
  it("reads issues from error details, ignoring other shapes", () => {
    expect(issuesOf({ issues: [{ pointer: "/path", message: "m", code: "c" }, { nope: 1 }] })).toEqual([
      { pointer: "/path", message: "m", code: "c" },
    ]);
    expect(issuesOf(undefined)).toEqual([]);
  });
});
