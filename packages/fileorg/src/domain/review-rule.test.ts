import { describe, expect, it } from "vitest";
import { buildRow } from "../tests/row-builder.js";
import { compileConditions, matchesRule, planRules, type RenderTarget, ReviewRule } from "./review-rule.js";

const render: RenderTarget = (row, template) => ({
  ok: true,
  path: `/out/${template.replace("{category}", row.category).replace("{name}{ext}", row.source_path.split("/").at(-1) ?? "")}`,
});
const rule = (input: unknown) => ReviewRule.parse(input);

describe("rule conditions", () => {
  const pdf = buildRow({ source_path: "/in/Receipts/Receipt-Amazon.PDF", size: 5000, confidence: 0.4 });

  it.each([
    [{ all: [{ field: "extension", in: ["pdf"] }] }, true],
    [{ all: [{ field: "extension", in: [".jpg"] }] }, false],
    [{ all: [{ field: "name_glob", glob: "receipt*" }] }, true],
    [{ all: [{ field: "name_regex", regex: "^receipt", flags: "i" }] }, true],
    [{ all: [{ field: "name_regex", regex: "^receipt" }] }, false],
    [{ all: [{ field: "path_glob", glob: "/in/Receipts/*" }] }, true],
    [{ all: [{ field: "path_glob", glob: "/in/*" }] }, false],
    [{ all: [{ field: "mime", in: ["application/*"] }] }, true],
    [{ all: [{ field: "category", in: ["Documents"] }] }, true],
    [{ all: [{ field: "size", min: 4000, max: 6000 }] }, true],
    [{ all: [{ field: "size", max: 4999 }] }, false],
    [{ all: [{ field: "date", from: "2024-03-09", to: "2024-03-09" }] }, true],
    [{ all: [{ field: "date", from: "2024-03-10" }] }, false],
    [{ all: [{ field: "confidence", max: 0.5 }] }, true],
    [{ all: [{ field: "bucket", in: ["auto_safe"] }] }, true],
    [{ all: [{ field: "has_conflict", value: true }] }, false],
    [
      {
        any: [
          { field: "extension", in: [".jpg"] },
          { field: "size", min: 1 },
        ],
      },
      true,
    ],
    [{ all: [{ field: "size", min: 1 }], none: [{ field: "extension", in: [".pdf"] }] }, false],
  ])("evaluates %j as %s", (conditions, expected) => {
    expect(matchesRule({ conditions: conditions as ReviewRule["conditions"] }, pdf)).toBe(expected);
  });
});

describe("planRules", () => {
  const rows = [
    buildRow({ source_path: "/in/a/invoice-1.pdf", review_bucket: "needs_review" }),
    buildRow({ source_path: "/in/a/photo.jpg", mime: "image/jpeg", category: "images" }),
    buildRow({ source_path: "/in/a/invoice-2.pdf", status: "applied" }),
  ];

  it("returns exactly the changed fields of the matching rows, from and to", () => {
    const plan = planRules(
      rows,
      [
        rule({
          id: "r1",
          name: "Invoices",
          conditions: { all: [{ field: "name_glob", glob: "invoice*" }] },
          actions: [
            { type: "set_category", category: "ebooks" },
            { type: "set_target", template: "{category}/{name}{ext}" },
            { type: "approve" },
          ],
        }),
      ],
      { renderTarget: render },
    );
    expect(plan).toEqual([
      {
        row_id: rows[0]?.row_id,
        rule_ids: ["r1"],
        changes: {
          category: { from: "documents", to: "ebooks" },
          target_path: { from: "/out/documents/2024/invoice-1.pdf", to: "/out/ebooks/invoice-1.pdf" },
          review_bucket: { from: "needs_review", to: "auto_safe" },
        },
      },
    ]);
  });

  it("lets the higher-priority rule win a field and stops when a rule says so", () => {
    const pdfs = { all: [{ field: "extension", in: [".pdf"] }] };
    const plan = planRules(
      rows.slice(0, 1),
      [
        rule({
          id: "low",
          name: "low",
          priority: 1,
          conditions: pdfs,
          actions: [{ type: "set_category", category: "audio" }],
        }),
        rule({
          id: "high",
          name: "high",
          priority: 9,
          conditions: pdfs,
          actions: [{ type: "set_category", category: "video" }],
        }),
        rule({ id: "skip", name: "skip", priority: 0, conditions: pdfs, actions: [{ type: "skip" }] }),
      ],
      { renderTarget: render },
    );
    expect(plan[0]?.changes).toEqual({
      category: { from: "documents", to: "video" },
      action: { from: "move", to: "skip" },
    });
    expect(plan[0]?.rule_ids).toEqual(["high", "low", "skip"]);

    const stopped = planRules(
      rows.slice(0, 1),
      [
        rule({
          id: "high",
          name: "high",
          priority: 9,
          stop_further_rules: true,
          conditions: pdfs,
          actions: [{ type: "set_category", category: "video" }],
        }),
        rule({ id: "skip", name: "skip", conditions: pdfs, actions: [{ type: "skip" }] }),
      ],
      { renderTarget: render },
    );
    expect(stopped[0]?.changes).toEqual({ category: { from: "documents", to: "video" } });
  });

  it("ignores disabled rules, finished rows and changes that change nothing", () => {
    const plan = planRules(
      rows,
      [
        rule({
          name: "off",
          enabled: false,
          conditions: { all: [{ field: "size", min: 0 }] },
          actions: [{ type: "skip" }],
        }),
        rule({
          name: "same",
          conditions: { all: [{ field: "category", in: ["images"] }] },
          actions: [{ type: "set_category", category: "images" }],
        }),
      ],
      { renderTarget: render },
    );
    expect(plan).toEqual([]);
  });
});

describe("user regexes", () => {
  const ROW_FOR_REGEX = buildRow({ source_path: "/in/x" });

  it("matches a catastrophic pattern for a backtracking engine in linear time", () => {
    const test = compileConditions({ all: [{ field: "name_regex", regex: "^(a+)+$" }] });
    const started = performance.now();
    const name = `${"a".repeat(28)}!`;
    expect(test({ ...ROW_FOR_REGEX, source_path: `/in/${name}` })).toBe(false);
    expect(test({ ...ROW_FOR_REGEX, source_path: `/in/${"a".repeat(28)}` })).toBe(true);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("refuses a pattern that needs backtracking with REGEX_INVALID", () => {
    expect(() => compileConditions({ all: [{ field: "name_regex", regex: "(a)\\1" }] })).toThrow(
      expect.objectContaining({ code: "REGEX_INVALID" }),
    );
  });
});
