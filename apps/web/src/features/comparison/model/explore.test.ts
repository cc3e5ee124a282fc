import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ComparisonDocument } from "@vetted/comparison";
import { describe, expect, it } from "vitest";
import { explore, fileLabel, matchesText } from "./explore.js";

const doc = JSON.parse(
  readFileSync(
    fileURLToPath(new URL("../../../../../../packages/comparison/examples/comparison.json", import.meta.url)),
    "utf8",
  ),
) as ComparisonDocument;

function count(result: ReturnType<typeof explore>, ref: string): number | undefined {
  return result.facets.flatMap((f) => f.values).find((v) => v.ref === ref)?.count;
}

describe("explore", () => {
  it("counts a value by what ticking it would show, OR within a group", () => {
    const none = explore(doc, [], "");
    expect(none.rows).toHaveLength(10);
    expect(count(none, "kind:builder")).toBe(4);
    const skill = explore(doc, ["kind:skill"], "");
    expect(skill.rows).toHaveLength(6);
    // Ticking builder next to skill shows every row, so its count says 10, not 0.
    expect(count(skill, "kind:builder")).toBe(10);
    expect(count(skill, "kind:skill")).toBe(6);
    // Another group narrows: skill AND codex.
    expect(count(skill, "host:codex")).toBe(1);
  });

  it("applies the text query to the rows and to every count", () => {
    const result = explore(doc, [], "diagnostics");
    expect(result.rows.map((r) => r.id)).toEqual(["mcp-diagnostics-skill", "openclaw-diagnostics-skill"]);
    expect(count(result, "kind:builder")).toBe(0);
    expect(count(result, "kind:skill")).toBe(2);
  });

  it("reports an unknown picked value and falls back to no picks", () => {
    const result = explore(doc, ["kind:nope"], "");
    expect(result.error).toBeInstanceOf(Error);
    expect(result.rows).toHaveLength(10);
    expect(result.facets.flatMap((f) => f.values).every((v) => !v.picked)).toBe(true);
  });
});

describe("matchesText", () => {
  it("needs every word, in any case, in the name or description", () => {
    const row = doc.comparisons[0];
    if (row === undefined) throw new Error("example has rows");
    expect(matchesText(row, "")).toBe(true);
    expect(matchesText(row, row.label.toUpperCase())).toBe(true);
    expect(matchesText(row, `${row.label} zzzz-not-there`)).toBe(false);
  });
});

describe("fileLabel", () => {
  it("keeps only the file name", () => {
    expect(fileLabel("/srv/data/docs/comparison.json")).toBe("comparison.json");
    expect(fileLabel("C:\\data\\comparison.json")).toBe("comparison.json");
    expect(fileLabel("comparison.json")).toBe("comparison.json");
  });
});
