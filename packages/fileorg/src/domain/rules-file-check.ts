import { isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { RulesFileError } from "../errors.js";
import { compileConditions, ReviewRule } from "./review-rule.js";
import { filePathOf, RulesFile, RulesFileRule, reviewRuleOf } from "./rules-file.js";

/**
 * Reads a rules file: YAML text → the engine's review rules, or every problem found, each naming the rule,
 * the field and the line and column. Pure: the text is given, nothing is read.
 */

/** One problem in a rules file. */
export interface RulesFileIssue {
  /** `RULES_FILE_SYNTAX` (the YAML cannot be read) or `RULES_FILE_INVALID` (it can, but is not a rules file). */
  code: "RULES_FILE_SYNTAX" | "RULES_FILE_INVALID";
  /** The name of the rule (when the problem is inside one that has a name). */
  rule?: string;
  /** The rule's place in its list (the location's `rules`, or the file's), from 0. */
  rule_index?: number;
  /** The place of the rule's (or the problem's) location block in `locations`, from 0. */
  location_index?: number;
  /** The field, as a dotted path under the rule (or the file): `filters.size.min`, `actions.target`. */
  field: string;
  /** 1-based line and column of the field in the file, when the YAML parser gives them. */
  line?: number;
  column?: number;
  message: string;
}

/** Where a rule of the file is: its 1-based line (and column), and its location block's path. */
export interface RulesFileRuleSource {
  name: string;
  line?: number;
  column?: number;
  location?: string;
}

/**
 * A rules file read: its rules as the engine runs them (the location blocks' rules, then the global ones,
 * each in the file's order), and where each one is in the file (`sources[i]` is `rules[i]`'s).
 */
export type RulesFileCheck =
  | { ok: true; file: RulesFile; rules: ReviewRule[]; sources: RulesFileRuleSource[] }
  | { ok: false; issues: RulesFileIssue[] };

/** A rule's place: its path in the file, and its location block (path as written and index). */
interface RuleSlot {
  at: [string, number] | [string, number, string, number];
  location?: { index: number; path: unknown };
}

type Doc = ReturnType<typeof parseDocument>;
type Ctx = { doc: Doc; lines: LineCounter; data: unknown };

/** The key node of the last step of `path` (for a field that should not be there). */
function keyNodeOf(doc: Doc, path: readonly PropertyKey[]) {
  const last = path.at(-1);
  const parentKeys = path.slice(0, -1).filter((k): k is string | number => typeof k !== "symbol");
  const parent = parentKeys.length === 0 ? doc.contents : doc.getIn(parentKeys, true);
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
  return isNode(pair?.key) ? pair.key : undefined;
}

/** The line and column of the deepest node of `path` that the document holds (its key with `atKey`). */
function positionOf(doc: Doc, lines: LineCounter, path: readonly PropertyKey[], atKey = false) {
  const key = atKey ? keyNodeOf(doc, path) : undefined;
  if (key?.range) {
    const pos = lines.linePos(key.range[0]);
    return { line: pos.line, column: pos.col };
  }
  for (let n = path.length; n >= 0; n--) {
    const keys = path.slice(0, n).filter((k): k is string | number => typeof k !== "symbol");
    const node = keys.length === 0 ? doc.contents : doc.getIn(keys, true);
    if (isNode(node) && node.range !== undefined && node.range !== null) {
      const pos = lines.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return {};
}

/** The data at `path` of the file's data (undefined when it is not there). */
function dataAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let at = data;
  for (const key of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

function ruleNameAt(data: unknown, path: readonly PropertyKey[]): string | undefined {
  const name = (dataAt(data, path) as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name.trim() !== "" ? name.trim() : undefined;
}

/** How many leading keys of `path` name a rule (`rules.2`, `locations.0.rules.1`) or a location (`locations.0`). */
function placeOf(path: readonly PropertyKey[]) {
  const [head, a, b, c] = path;
  if (head === "rules" && typeof a === "number") return { ruleAt: 2, rule_index: a };
  if (head === "locations" && typeof a === "number") {
    if (b === "rules" && typeof c === "number") return { ruleAt: 4, rule_index: c, location_index: a };
    return { ruleAt: 0, locationAt: 2, location_index: a };
  }
  return { ruleAt: 0 };
}

/** An issue at `path` of the file (`["rules", 2, "filters", "size"]`, `["locations", 0, "rules", 1, …]`). */
function issueAt(ctx: Ctx, path: readonly PropertyKey[], message: string, atKey = false): RulesFileIssue {
  const place = placeOf(path);
  const inRule = place.ruleAt > 0;
  const name = inRule ? ruleNameAt(ctx.data, path.slice(0, place.ruleAt)) : undefined;
  const skip = inRule ? place.ruleAt : (place.locationAt ?? 0);
  const field = path.slice(skip).map(String).join(".");
  return {
    code: "RULES_FILE_INVALID",
    ...(name === undefined ? {} : { rule: name }),
    ...(place.rule_index === undefined ? {} : { rule_index: place.rule_index }),
    ...(place.location_index === undefined ? {} : { location_index: place.location_index }),
    field:
      field === "" ? (inRule ? "rule" : place.location_index === undefined ? "file" : "location") : field,
    ...positionOf(ctx.doc, ctx.lines, path, atKey),
    message,
  };
}

/**
 * A union's own issue says only "Invalid input": report the branch that got furthest (the one whose
 * problems are not a wrong type at its root), or what types were expected.
 */
function unionIssues(ctx: Ctx, issue: z.core.$ZodIssueInvalidUnion, prefix: PropertyKey[]): RulesFileIssue[] {
  const here = [...prefix, ...issue.path];
  if (issue.message !== "Invalid input") return [issueAt(ctx, here, issue.message)];
  const deeper =
    issue.errors.find((branch) => branch.some((i) => i.path.length > 0)) ??
    issue.errors.find((branch) => branch.some((i) => i.code !== "invalid_type"));
  if (deeper !== undefined) return deeper.flatMap((i) => issuesOf(ctx, i, here));
  const expected = [
    ...new Set(issue.errors.flat().flatMap((i) => (i.code === "invalid_type" ? [i.expected] : []))),
  ];
  return [issueAt(ctx, here, `expected ${expected.join(" or ")}`)];
}

function issuesOf(ctx: Ctx, i: z.core.$ZodIssue, prefix: PropertyKey[]): RulesFileIssue[] {
  if (i.code === "invalid_union") return unionIssues(ctx, i, prefix);
  // An unknown key is reported at the key itself.
  const key = i.code === "unrecognized_keys" ? i.keys[0] : undefined;
  const unknownKey = key !== undefined;
  const at = key === undefined ? i.path : [...i.path, key];
  return [issueAt(ctx, [...prefix, ...at], i.message, unknownKey)];
}

function zodIssues(ctx: Ctx, error: z.ZodError, prefix: PropertyKey[]) {
  return error.issues.flatMap((i) => issuesOf(ctx, i, prefix));
}

/** The 1-based line and column of the rule at `slot` (its first key). */
function sourceOf(ctx: Ctx, slot: RuleSlot, name: string): RulesFileRuleSource {
  const location = slot.location?.path;
  return {
    name,
    ...positionOf(ctx.doc, ctx.lines, slot.at),
    ...(typeof location === "string" ? { location } : {}),
  };
}

/**
 * The problems the engine's own rule schema (and its regex compiler) finds in the rules whose shape is
 * right (`undefined` entries are rules with shape problems, reported already), and duplicate names (across
 * the whole file: the outcome of a run names rules by name).
 */
function engineIssues(ctx: Ctx, entries: ReadonlyArray<{ slot: RuleSlot; rule: RulesFileRule | undefined }>) {
  const issues: RulesFileIssue[] = [];
  const rules: ReviewRule[] = [];
  const sources: RulesFileRuleSource[] = [];
  const seen = new Map<string, RulesFileRuleSource>();
  entries.forEach(({ slot, rule: fileRule }, index) => {
    if (fileRule === undefined) return;
    const source = sourceOf(ctx, slot, fileRule.name);
    const first = seen.get(fileRule.name);
    if (first !== undefined) {
      issues.push(
        issueAt(
          ctx,
          [...slot.at, "name"],
          `the name is already used by the rule on line ${first.line ?? "?"}; names must be unique`,
        ),
      );
    } else seen.set(fileRule.name, source);
    const location = typeof slot.location?.path === "string" ? slot.location.path : undefined;
    const { rule, sources: where } = reviewRuleOf(fileRule, index, entries.length, location);
    const parsed = ReviewRule.safeParse(rule);
    if (!parsed.success) {
      for (const i of parsed.error.issues)
        issues.push(issueAt(ctx, [...slot.at, ...filePathOf(i.path, where)], i.message));
      return;
    }
    try {
      compileConditions(parsed.data.conditions);
    } catch (err) {
      issues.push(issueAt(ctx, [...slot.at, "filters"], err instanceof Error ? err.message : String(err)));
      return;
    }
    rules.push(parsed.data);
    sources.push(source);
  });
  return { issues, rules, sources };
}

/** Every rule's place in the file's data: the location blocks' rules in order, then the global rules. */
function slotsOf(data: unknown): Array<{ slot: RuleSlot; item: unknown }> {
  const out: Array<{ slot: RuleSlot; item: unknown }> = [];
  const locations = dataAt(data, ["locations"]);
  if (Array.isArray(locations)) {
    locations.forEach((block: unknown, li) => {
      const list = dataAt(block, ["rules"]);
      if (!Array.isArray(list)) return;
      const location = { index: li, path: dataAt(block, ["path"]) };
      list.forEach((item: unknown, ri) => {
        out.push({ slot: { at: ["locations", li, "rules", ri], location }, item });
      });
    });
  }
  const rules = dataAt(data, ["rules"]);
  if (Array.isArray(rules)) {
    rules.forEach((item: unknown, ri) => {
      out.push({ slot: { at: ["rules", ri] }, item });
    });
  }
  return out;
}

/** Each rule of the file on its own: its shape issues, or the rule (so one bad rule hides no other's issues). */
function ruleShapes(ctx: Ctx, data: unknown) {
  const issues: RulesFileIssue[] = [];
  const entries = slotsOf(data).map(({ slot, item }) => {
    const parsed = RulesFileRule.safeParse(item);
    if (parsed.success) return { slot, rule: parsed.data };
    issues.push(...zodIssues(ctx, parsed.error, slot.at));
    return { slot, rule: undefined };
  });
  return { issues, entries };
}

/** The order issues are listed in: the file's own, each location's, then each rule's in the rules' order. */
function orderOf(issue: RulesFileIssue): number {
  if (issue.location_index !== undefined)
    return 1 + issue.location_index * 1e6 + (issue.rule_index ?? -1) + 1;
  return issue.rule_index === undefined ? 0 : 1e12 + issue.rule_index;
}

/** The YAML document of a rules file and its data, or its syntax problems. */
function readYaml(text: string): Ctx | { issues: RulesFileIssue[] } {
  const lines = new LineCounter();
  try {
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
    if (doc.errors.length === 0) {
      // Aliases that expand past the limit (a "billion laughs" file) throw here.
      return { doc, lines, data: doc.toJS({ maxAliasCount: 100 }) };
    }
    return {
      issues: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return {
          code: "RULES_FILE_SYNTAX" as const,
          field: "file",
          ...(pos === undefined ? {} : { line: pos.line, column: pos.col }),
          message: (e.message.split("\n")[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, ""),
        };
      }),
    };
  } catch (err) {
    // A file nested too deep for the parser, or the alias limit above.
    const message = err instanceof Error ? err.message : String(err);
    return { issues: [{ code: "RULES_FILE_SYNTAX", field: "file", message }] };
  }
}

/**
 * Reads and validates a rules file. Answers its rules (as the engine's {@link ReviewRule}s, in the file's
 * order, ready for the rule engine) or every issue found — YAML syntax first (then nothing else is checked),
 * then the file's shape, then what the engine's rule schema refuses (a bad template, a bad regex, min above
 * max, a rule without filters).
 */
export function checkRulesFile(text: string): RulesFileCheck {
  const ctx = readYaml(text);
  if ("issues" in ctx) return { ok: false, issues: ctx.issues };
  const { data } = ctx;
  if (data === null || data === undefined) {
    return { ok: false, issues: [issueAt(ctx, [], "the file is empty: it needs `version: 1` and `rules:`")] };
  }
  const shape = RulesFile.safeParse(data);
  if (shape.success) {
    const parsed = rulesInOrder(shape.data);
    const entries = slotsOf(data).map(({ slot }, i) => ({ slot, rule: parsed[i] }));
    const { issues, rules, sources } = engineIssues(ctx, entries);
    return issues.length > 0 ? { ok: false, issues } : { ok: true, file: shape.data, rules, sources };
  }
  // The file's (and the locations') own fields first, then every rule on its own, in file order.
  const fileIssues = zodIssues(ctx, shape.error, []).filter((i) => i.rule_index === undefined);
  const perRule = ruleShapes(ctx, data);
  const engine = engineIssues(ctx, perRule.entries);
  const all = [...fileIssues, ...perRule.issues, ...engine.issues];
  // A stable sort: within one rule, the shape's issues, then the engine's, each by line.
  return { ok: false, issues: all.sort((a, b) => orderOf(a) - orderOf(b) || (a.line ?? 0) - (b.line ?? 0)) };
}

/** The rules of a parsed file in {@link slotsOf} order. */
function rulesInOrder(file: RulesFile): RulesFileRule[] {
  return [...(file.locations ?? []).flatMap((l) => l.rules), ...(file.rules ?? [])];
}

/** One issue as a line for people: `12:9 rule "Invoices" filters.size.min: min must not be greater than max`. */
export function formatRulesFileIssue(issue: RulesFileIssue, fileName = ""): string {
  const where = [fileName, issue.line, issue.column].filter((p) => p !== "" && p !== undefined).join(":");
  const location = issue.location_index === undefined ? "" : `location ${issue.location_index + 1} `;
  const rule =
    issue.rule === undefined
      ? issue.rule_index === undefined
        ? location
        : `${location}rule ${issue.rule_index + 1} `
      : `rule "${issue.rule}" `;
  return `${where === "" ? "" : `${where}: `}${rule}${issue.field}: ${issue.message}`;
}

/**
 * The rules of a rules file, in the file's order, ready for the rule engine; a file with problems throws
 * {@link RulesFileError} (`RULES_FILE_SYNTAX` or `RULES_FILE_INVALID`, every issue in `details.issues`).
 */
export function loadRulesFile(text: string): ReviewRule[] {
  const checked = checkRulesFile(text);
  if (!checked.ok) throw new RulesFileError(checked.issues);
  return checked.rules;
}
