import { describe, expect, it } from "vitest";
import { CursorInvalidError, decodeCursor, encodeCursor } from "./cursor.js";

describe("keyset cursors", () => {
  it("round-trips a sort key for the list it was made for", () => {
    const cursor = encodeCursor("runs", [1_700_000_000_000, "run_abc"]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, "runs", ["integer", "string"])).toEqual([1_700_000_000_000, "run_abc"]);
  });

  it("refuses garbage, another list's cursor, a wrong shape and non-finite numbers with CURSOR_INVALID", () => {
    const runs = encodeCursor("runs", [1, "run_a"]);
    const bad = [
      "garbage!",
      "",
      "1e309",
      "Infinity",
      Buffer.from('[2,"runs",1,"a"]').toString("base64url"),
      Buffer.from('[1,"runs",1e309,"a"]').toString("base64url"),
      Buffer.from('[1,"runs",1.5,"a"]').toString("base64url"),
      Buffer.from('[1,"runs",1]').toString("base64url"),
    ];
    for (const cursor of bad) {
      expect(() => decodeCursor(cursor, "runs", ["integer", "string"]), cursor).toThrow(CursorInvalidError);
    }
    expect(() => decodeCursor(runs, "flows", ["integer", "string"])).toThrow(/another list/);
    try {
      decodeCursor("garbage!", "runs", ["integer"]);
    } catch (err) {
      expect((err as CursorInvalidError).code).toBe("CURSOR_INVALID");
    }
  });
});
