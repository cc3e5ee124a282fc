import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rulesFileJsonSchema } from "./rules-file.js";
import { checkRulesFile, formatRulesFileIssue } from "./rules-file-check.js";

const GOOD = `# yaml-language-server: $schema=../schema/rules.schema.json
version: 1
rules:
  - name: Invoices
    filters:
      extension: [pdf]
      name: "invoice*"
      size: { max: 1000000 }
    actions:
      category: documents
      target: "receipts/{yyyy}/{name}"
  - name: Skip partial downloads
    any:
      extension: part
      name: "*.crdownload"
    actions:
      skip: true
  - name: Approve old photos
    filters:
      category: images
      date: { to: 2020-12-31 }
      unit: false
    exclude:
      reason: [EXTENSION_MISMATCH]
    actions:
      approve: true
    continue: true
`;

describe("checkRulesFile", () => {
  it("turns each rule of the file into one engine rule, in file order", () => {
    const checked = checkRulesFile(GOOD);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.rules.map((r) => [r.name, r.priority, r.stop_further_rules])).toEqual([
      ["Invoices", 3, true],
      ["Skip partial downloads", 2, true],
      ["Approve old photos", 1, false],
    ]);
    expect(checked.rules[0]?.conditions.all).toEqual([
      { field: "extension", in: ["pdf"] },
      { field: "name_glob", glob: "invoice*" },
      { field: "size", max: 1000000 },
    ]);
    expect(checked.rules[0]?.actions).toEqual([
      { type: "set_category", category: "documents" },
      { type: "set_target", template: "receipts/{yyyy}/{name}" },
    ]);
    expect(checked.rules[2]?.conditions).toEqual({
      all: [
        { field: "category", in: ["images"] },
        { field: "content_date", to: "2020-12-31" },
        { field: "unit", value: false },
      ],
      none: [{ field: "reason", in: ["EXTENSION_MISMATCH"] }],
    });
  });

  it("names the rule, the field, the line and the column of each problem", () => {
    const bad = GOOD.replace("extension: [pdf]", "extension: 5")
      .replace("reason: [EXTENSION_MISMATCH]", "reason: [EXTENSION_MISMATCH, NOPE]")
      .replace("skip: true", "skip: true\n      move: true")
      .replace("date: { to: 2020-12-31 }", "date: { to: yesterday }");
    const checked = checkRulesFile(bad);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.issues.map((i) => formatRulesFileIssue(i, "rules.yaml"))).toMatchInlineSnapshot(`
      [
        "rules.yaml:6:18: rule "Invoices" filters.extension: expected string or array",
        "rules.yaml:18:7: rule "Skip partial downloads" actions.move: unknown action field "move"; use category, target, skip, trash, copy, approve",
        "rules.yaml:22:19: rule "Approve old photos" filters.date.to: expected a date (2024-05-31) or a date-time with an offset (2024-05-31T09:00:00+02:00)",
        "rules.yaml:25:36: rule "Approve old photos" exclude.reason.1: unknown reason "NOPE"; use one of ALREADY_IN_PLACE, APPROVED, BLOCKED, EDITED, EXTENSION_MISMATCH, FILE_TOO_LARGE, IGNORED, LEARNED_AGREES, LEARNED_DISAGREES, LOW_CONFIDENCE, MIME_FROM_EXTENSION, MIME_FROM_MAGIC, OPEN_CONFLICT, PACK_CATEGORY, PACK_RULE, PROTECTED_PATH, SAVED_RULE, SKIP_CHOSEN, SOURCE_CHANGED, SPECIAL_FILE, SYMLINK, UNIT_KEPT_WHOLE, UNKNOWN_TYPE, UNREADABLE",
      ]
    `);
  });

  it("reports a YAML syntax error with its line and column", () => {
    const checked = checkRulesFile("version: 1\nrules:\n  - name: a\n    filters: { extension: pdf\n");
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.issues[0]).toMatchObject({ code: "RULES_FILE_SYNTAX" });
    expect(checked.issues.map((i) => formatRulesFileIssue(i))).toMatchInlineSnapshot(`
      [
        "5:1: file: Flow map in block collection must be sufficiently indented and end with a }",
      ]
    `);
  });

  it("refuses a bad template, a bad regex, a duplicate name and a rule without filters", () => {
    const text = `version: 1
rules:
  - name: A
    filters: { name_regex: "(", size: { min: 10, max: 5 } }
    actions: { target: "{nope}/x" }
  - name: A
    actions: { skip: true }
`;
    const checked = checkRulesFile(text);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.issues.map((i) => formatRulesFileIssue(i))).toMatchInlineSnapshot(`
      [
        "4:28: rule "A" filters.name_regex: invalid regular expression: Invalid regular expression: /(/: Unterminated group",
        "4:46: rule "A" filters.size.min: min must not be greater than max",
        "5:24: rule "A" actions.target: {nope}: unknown token; use one of {category} {yyyy} {mm} {dd} {name} {ext} {hash8} {parent} {relpath} {camera_make} {camera_model} {artist} {album} {track} {title} {unit}",
        "6:11: rule "A" name: the name is already used by the rule on line 3; names must be unique",
        "6:5: rule "A" filters: a rule needs at least one condition in all, any or none",
      ]
    `);
  });
});

describe("the published JSON Schema", () => {
  it("is the one generated from the zod schema (run `pnpm --filter @vetted/fileorg schema:rules`)", () => {
    const committed = readFileSync(new URL("../../schema/rules.schema.json", import.meta.url), "utf8");
    expect(JSON.parse(committed)).toEqual(rulesFileJsonSchema());
  });
});

describe("the README's rules file example", () => {
  it("is a valid rules file", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const example = /## Rules file[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const checked = checkRulesFile(example ?? "");
    expect(checked.ok ? [] : checked.issues).toEqual([]);
  });
});

const LOCATIONS = `version: 1
locations:
  - path: Scans
    rules:
      - name: Scanned PDFs
        filters: { extension: pdf }
        actions: { category: documents }
  - path: Scans/2024
    rules:
      - name: This year's scans
        filters: { extension: pdf }
        actions: { copy: true }
rules:
  - name: Everything else
    filters: { extension: [pdf, txt] }
    actions: { skip: true }
`;

describe("location blocks", () => {
  it("give their rules a location and say where each rule is (line, location)", () => {
    const checked = checkRulesFile(LOCATIONS);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.rules.map((r) => [r.name, r.location, r.priority])).toEqual([
      ["Scanned PDFs", "Scans", 3],
      ["This year's scans", "Scans/2024", 2],
      ["Everything else", undefined, 1],
    ]);
    expect(checked.rules[1]?.actions).toEqual([{ type: "copy" }]);
    expect(checked.sources).toEqual([
      { name: "Scanned PDFs", line: 5, column: 9, location: "Scans" },
      { name: "This year's scans", line: 10, column: 9, location: "Scans/2024" },
      { name: "Everything else", line: 14, column: 5 },
    ]);
  });

  it("report problems inside a location block with its line and column", () => {
    const bad = LOCATIONS.replace("path: Scans/2024", "path: ../elsewhere")
      .replace("extension: pdf }\n        actions: { copy", "extension: 5 }\n        actions: { copy")
      .replace("category: documents", "category: documents, move: true");
    const checked = checkRulesFile(bad);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.issues.map((i) => formatRulesFileIssue(i, "rules.yaml"))).toMatchInlineSnapshot(`
      [
        "rules.yaml:7:41: rule "Scanned PDFs" actions.move: unknown action field "move"; use category, target, skip, trash, copy, approve",
        "rules.yaml:8:11: location 2 path: a location may not contain \`..\` segments",
        "rules.yaml:11:31: rule "This year's scans" filters.extension: expected string or array",
      ]
    `);
  });

  it("keeps rule names unique across location blocks and the global rules", () => {
    const checked = checkRulesFile(LOCATIONS.replace("name: Everything else", "name: Scanned PDFs"));
    expect(checked.ok ? [] : checked.issues.map((i) => formatRulesFileIssue(i))).toEqual([
      '14:11: rule "Scanned PDFs" name: the name is already used by the rule on line 5; names must be unique',
    ]);
  });

  it("needs rules or locations", () => {
    const checked = checkRulesFile("version: 1\n");
    expect(checked.ok ? [] : checked.issues.map((i) => formatRulesFileIssue(i))).toMatchInlineSnapshot(`
      [
        "1:1: file: a rules file needs \`rules:\` or \`locations:\` (or both)",
      ]
    `);
  });
});

describe("rankByLocation", () => {
  it("puts the most specific location's rules first, then outer ones, then the global rules", async () => {
    const { rankByLocation } = await import("./rule-locations.js");
    const checked = checkRulesFile(LOCATIONS);
    if (!checked.ok) throw new Error("the file is valid");
    const ranked = rankByLocation(checked.rules, { root: "/data/in" });
    expect(ranked.map((r) => [r.name, r.priority])).toEqual([
      ["This year's scans", 3],
      ["Scanned PDFs", 2],
      ["Everything else", 1],
    ]);
  });
});
