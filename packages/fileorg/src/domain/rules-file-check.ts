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
  /** The rule's place in the file, from 0. */
  rule_index?: number;
  /** The field, as a dotted path under the rule (or the file): `filters.size.min`, `actions.target`. */
  field: string;
  /** 1-based line and column of the field in the file, when the YAML parser gives them. */
  line?: number;
  column?: number;
  message: string;
}

/** A rules file read: its rules as the engine runs them, in the file's order. */
export type RulesFileCheck =
  | { ok: true; file: RulesFile; rules: ReviewRule[] }
  | { ok: false; issues: RulesFileIssue[] };

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

function ruleNameAt(data: unknown, index: number): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const rules = (data as { rules?: unknown }).rules;
  if (!Array.isArray(rules)) return undefined;
  const name = (rules[index] as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name.trim() !== "" ? name.trim() : undefined;
}

/** An issue at `path` of the file (`["rules", 2, "filters", "size"]`). */
function issueAt(ctx: Ctx, path: readonly PropertyKey[], message: string, atKey = false): RulesFileIssue {
  const [head, index, ...rest] = path;
  const inRule = head === "rules" && typeof index === "number";
  const name = inRule ? ruleNameAt(ctx.data, index) : undefined;
  const field = (inRule ? rest : path).map(String).join(".");
  return {
    code: "RULES_FILE_INVALID",
    ...(name === undefined ? {} : { rule: name }),
    ...(inRule ? { rule_index: index } : {}),
    field: field === "" ? (inRule ? "rule" : "file") : field,
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

/**
 * The problems the engine's own rule schema (and its regex compiler) finds in the rules whose shape is
 * right (`undefined` entries are rules with shape problems, reported already), and duplicate names.
 */
function engineIssues(ctx: Ctx, fileRules: ReadonlyArray<RulesFileRule | undefined>) {
  const issues: RulesFileIssue[] = [];
  const rules: ReviewRule[] = [];
  const seen = new Map<string, number>();
  fileRules.forEach((fileRule, index) => {
    if (fileRule === undefined) return;
    const first = seen.get(fileRule.name);
    if (first !== undefined) {
      issues.push(
        issueAt(
          ctx,
          ["rules", index, "name"],
          `the name is already used by rule ${first + 1}; names must be unique`,
        ),
      );
    } else seen.set(fileRule.name, index);
    const { rule, sources } = reviewRuleOf(fileRule, index, fileRules.length);
    const parsed = ReviewRule.safeParse(rule);
    if (!parsed.success) {
      for (const i of parsed.error.issues)
        issues.push(issueAt(ctx, ["rules", index, ...filePathOf(i.path, sources)], i.message));
      return;
    }
    try {
      compileConditions(parsed.data.conditions);
    } catch (err) {
      issues.push(
        issueAt(ctx, ["rules", index, "filters"], err instanceof Error ? err.message : String(err)),
      );
      return;
    }
    rules.push(parsed.data);
  });
  return { issues, rules };
}

/** Each rule of the file on its own: its shape issues, or the rule (so one bad rule hides no other's issues). */
function ruleShapes(ctx: Ctx, data: unknown) {
  const list = (data as { rules?: unknown }).rules;
  if (!Array.isArray(list)) return { issues: [], rules: [] };
  const issues: RulesFileIssue[] = [];
  const rules = list.map((item, index) => {
    const parsed = RulesFileRule.safeParse(item);
    if (parsed.success) return parsed.data;
    issues.push(...zodIssues(ctx, parsed.error, ["rules", index]));
    return undefined;
  });
  return { issues, rules };
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
    const { issues, rules } = engineIssues(ctx, shape.data.rules);
    return issues.length > 0 ? { ok: false, issues } : { ok: true, file: shape.data, rules };
  }
  // The file's own fields first, then every rule on its own, in file order.
  const fileIssues = zodIssues(ctx, shape.error, []).filter((i) => i.rule_index === undefined);
  const perRule = ruleShapes(ctx, data);
  const engine = engineIssues(ctx, perRule.rules);
  const byRule = [...perRule.issues, ...engine.issues].sort(
    (a, b) => (a.rule_index ?? 0) - (b.rule_index ?? 0) || (a.line ?? 0) - (b.line ?? 0),
  );
  return { ok: false, issues: [...fileIssues, ...byRule] };
}

/** One issue as a line for people: `12:9 rule "Invoices" filters.size.min: min must not be greater than max`. */
export function formatRulesFileIssue(issue: RulesFileIssue, fileName = ""): string {
  const where = [fileName, issue.line, issue.column].filter((p) => p !== "" && p !== undefined).join(":");
  const rule =
    issue.rule === undefined
      ? issue.rule_index === undefined
        ? ""
        : `rule ${issue.rule_index + 1} `
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
