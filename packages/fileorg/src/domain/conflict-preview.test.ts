import { describe, expect, it } from "vitest";
import { PREVIEWED_STRATEGIES, summarizeOutcome } from "./conflict-preview.js";

describe("summarizeOutcome", () => {
  it("names each file after the resolution: its new name, skipped, or to the trash", () => {
    const files = [
      { action: "move" as const, target: "images/a.jpg", name: "x/a.jpg" },
      { action: "trash" as const, target: "", name: "y/a.jpg" },
      { action: "skip" as const, target: "images/a.jpg", name: "z/a.jpg" },
    ];
    expect(summarizeOutcome("move_to_trash", files)).toBe(
      "move copies to the trash → a.jpg, y/a.jpg (to the trash), z/a.jpg (skipped, stays where it is)",
    );
  });

  it("previews every strategy but manual, the trash included", () => {
    expect(PREVIEWED_STRATEGIES).toContain("move_to_trash");
    expect(PREVIEWED_STRATEGIES).not.toContain("manual");
  });
});
