import { describe, expect, it } from "vitest";
import { conflictTitle, outcomeLine } from "./conflict-words.js";

describe("conflict words", () => {
  it("names a conflict by its relative target, never by a hash", () => {
    expect(conflictTitle("duplicate_target", ["images/2024/a.jpg", "images/2024/a.jpg"])).toBe(
      "duplicate target: 2 files want images/2024/a.jpg",
    );
    expect(conflictTitle("duplicate_content", ["a.jpg", "b.jpg", "c.jpg"])).toBe(
      "duplicate content: 3 copies of the same file",
    );
  });

  it("says what a file becomes: its new place, or that it stays", () => {
    expect(outcomeLine("y/a.jpg", { action: "move", target: "images/a (2).jpg" })).toBe(
      "y/a.jpg → images/a (2).jpg",
    );
    expect(outcomeLine("y/a.jpg", { action: "skip", target: "images/a.jpg" })).toBe(
      "y/a.jpg: skipped, stays where it is",
    );
    expect(outcomeLine("y/a.jpg", { action: "trash", target: "" })).toBe("y/a.jpg → the trash");
  });
});
