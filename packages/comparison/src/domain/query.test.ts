import { describe, expect, it } from "vitest";
import { ComparisonError } from "../errors.js";
import { createSampleDocument } from "../tests/fixtures.js";
import { facets, group, query } from "./query.js";

const document = createSampleDocument();
const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id);

describe("query", () => {
  it("returns every row, in document order, for an empty selection", () => {
    expect(query(document)).toEqual(document.comparisons);
  });

  it("ANDs conditions across fields", () => {
    expect(
      ids(query(document, { where: { starterKind: "skill", readOnly: true, hostFamily: "codex" } })),
    ).toEqual(["codex-docs-skill"]);
  });

  it("ORs the values listed for one field", () => {
    expect(ids(query(document, { where: { status: ["planned", "not now"] } }))).toEqual([
      "openclaw-builder",
      "openclaw-diagnostics-skill",
    ]);
  });

  it("selects by picked filter values: OR within a group, AND across groups", () => {
    const rows = query(document, { groups: ["host:codex", "host:mcp", "kind:skill"] });
    expect(ids(rows)).toEqual(["codex-docs-skill", "mcp-readonly-skill", "mcp-diagnostics-skill"]);
    expect(ids(query(document, { where: { readOnly: true }, groups: ["audience:newcomers"] }))).toEqual([
      "mcp-readonly-skill",
    ]);
  });

  it("refuses a field that cannot be filtered on, naming the ones that can", () => {
    const run = () => query(document, { where: { bestWhen: "x" } as never });
    expect(run).toThrow(ComparisonError);
    expect(run).toThrow(/Rows cannot be filtered on "bestWhen"; filterable fields: id, label, status/);
  });

  it("refuses a picked value that does not name its group", () => {
    expect(() => query(document, { groups: ["skill"] })).toThrow(
      expect.objectContaining({ code: "INVALID_SELECTION" }),
    );
  });

  it("refuses an unknown filter value, naming the group's values", () => {
    expect(() => query(document, { groups: ["kind:plugin"] })).toThrow(
      'Filter group "kind" has no value "plugin"; known values: builder, skill.',
    );
  });
});

describe("facets", () => {
  it("counts the rows of the selection each value lists, for every group", () => {
    const result = facets(document, { where: { readOnly: true } });
    expect(result.map((facet) => facet.id)).toEqual(["host", "kind", "audience"]);
    expect(result[0]?.values.map((value) => [value.id, value.count])).toEqual([
      ["codex", 1],
      ["claude-code", 1],
      ["openclaw", 1],
      ["mcp", 2],
      ["none", 1],
    ]);
    expect(result[1]?.values.map((value) => [value.id, value.count])).toEqual([
      ["builder", 0],
      ["skill", 6],
    ]);
  });
});

describe("group", () => {
  it("resolves a group's values to their rows", () => {
    const resolved = group(document, "audience");
    expect(resolved.values.map((value) => [value.id, ids(value.rows)])).toEqual([
      ["newcomers", ["codex-builder", "mcp-readonly-skill"]],
      ["maintainers", ["claude-code-docs-skill"]],
    ]);
  });

  it("names the known group ids when the id is unknown", () => {
    expect(() => group(document, "hosts")).toThrow(
      expect.objectContaining({
        code: "UNKNOWN_GROUP",
        message: 'There is no filter group "hosts"; known groups: host, kind, audience.',
      }),
    );
  });
});
