import { describe, expect, it } from "vitest";
import { ReviewRule, type ReviewRuleInput } from "./review-rule.js";
import { checkRulesFile } from "./rules-file-check.js";
import { exportRulesFile } from "./rules-file-export.js";

const saved: ReviewRuleInput[] = [
  {
    id: "rule_low",
    name: "Receipts",
    priority: 1,
    conditions: {
      all: [
        { field: "extension", in: [".pdf", "png"] },
        { field: "name_glob", glob: "receipt*" },
        { field: "size", max: 1_000_000 },
        { field: "content_date", from: "2020-01-01" },
      ],
      none: [{ field: "unit", value: true }],
    },
    actions: [
      { type: "set_category", category: "documents" },
      { type: "set_target", template: "receipts/{yyyy}/{name}{ext}" },
    ],
  },
  {
    id: "rule_high",
    name: "Old photos",
    priority: 10,
    stop_further_rules: true,
    conditions: {
      any: [
        { field: "mime", in: ["image/*"] },
        { field: "duplicate", role: "copy" },
        { field: "has_conflict", value: false },
      ],
      all: [{ field: "bucket", in: ["needs_review"] }],
    },
    actions: [{ type: "approve" }],
  },
  {
    id: "rule_off",
    name: "Receipts",
    enabled: false,
    priority: -5,
    conditions: { all: [{ field: "date", to: "2019-12-31" }] },
    actions: [{ type: "skip" }],
  },
  {
    id: "rule_flags",
    name: "Case-blind scans",
    conditions: { all: [{ field: "name_regex", regex: "^scan", flags: "i" }] },
    actions: [{ type: "skip" }],
  },
];

describe("exportRulesFile", () => {
  it("writes saved rules as a rules file that reads back as the same rules, in the order they apply", () => {
    const rules = saved.map((r) => ReviewRule.parse(r));
    const exported = exportRulesFile(rules);
    expect(exported.exported).toBe(3);
    expect(exported.left_out).toEqual([{ rule: "Case-blind scans", reason: 'name_regex with flags "i"' }]);
    expect(exported.text).toContain('#   "Case-blind scans": name_regex with flags "i"');
    const checked = checkRulesFile(exported.text);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const back = checked.rules;
    expect(back.map((r) => [r.name, r.enabled, r.stop_further_rules])).toEqual([
      ["Old photos", true, true],
      ["Receipts", true, false],
      ["Receipts (2)", false, false],
    ]);
    const byId = new Map(rules.map((r) => [r.id, r]));
    for (const [i, id] of ["rule_high", "rule_low", "rule_off"].entries()) {
      const original = byId.get(id);
      expect(back[i]?.actions).toEqual(original?.actions);
      // The same conditions; the file lists a group's filters in its own key order.
      for (const group of ["all", "any", "none"] as const) {
        const sort = (list: unknown[] | undefined) =>
          (list ?? []).map((c) => JSON.stringify(c)).sort((a, b) => a.localeCompare(b));
        expect(sort(back[i]?.conditions[group])).toEqual(sort(original?.conditions[group]));
      }
    }
  });

  it("keeps a saved rule's location (its block) and a copy action through the round trip", () => {
    const rules = [
      ...saved.slice(0, 2),
      {
        id: "rule_scans",
        name: "Copy scans",
        priority: 5,
        location: "/home/me/Scans",
        conditions: { all: [{ field: "extension", in: ["pdf"] }] },
        actions: [{ type: "copy" }],
      } satisfies ReviewRuleInput,
      {
        id: "rule_downloads",
        name: "Trash partials",
        priority: 4,
        location: "~/Downloads",
        conditions: { all: [{ field: "extension", in: ["part"] }] },
        actions: [{ type: "trash" }],
      } satisfies ReviewRuleInput,
    ].map((r) => ReviewRule.parse(r));
    const exported = exportRulesFile(rules);
    expect(exported).toMatchObject({ exported: 4, left_out: [] });
    const checked = checkRulesFile(exported.text);
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    expect(checked.rules.map((r) => [r.name, r.location, r.actions])).toEqual([
      ["Copy scans", "/home/me/Scans", [{ type: "copy" }]],
      ["Trash partials", "~/Downloads", [{ type: "trash" }]],
      ["Old photos", undefined, [{ type: "approve" }]],
      ["Receipts", undefined, rules[0]?.actions],
    ]);
    expect(checked.sources.map((s) => s.location)).toEqual([
      "/home/me/Scans",
      "~/Downloads",
      undefined,
      undefined,
    ]);
  });

  it("leaves out a located rule the file refuses, naming it, and keeps the others", () => {
    const rules = [
      ReviewRule.parse({
        name: "Bad reason",
        location: "Scans",
        conditions: { all: [{ field: "reason", in: ["NOPE"] }] },
        actions: [{ type: "skip" }],
      }),
      ReviewRule.parse({
        name: "Fine",
        location: "Scans",
        conditions: { all: [{ field: "extension", in: ["pdf"] }] },
        actions: [{ type: "skip" }],
      }),
    ];
    const exported = exportRulesFile(rules);
    expect(exported.exported).toBe(1);
    expect(exported.left_out.map((l) => l.rule)).toEqual(["Bad reason"]);
  });

  it("answers an empty file with a header when nothing is saved", () => {
    const exported = exportRulesFile([]);
    expect(exported).toMatchObject({ exported: 0, left_out: [] });
    expect(exported.text).toContain("rules: []");
  });
});
