import { compileUserRegex } from "@vetted/store/limits";
import picomatch from "picomatch";
import { compileMetaCondition } from "./meta-conditions.js";
import { basenameOf, extensionOf, type ReviewRowFacts } from "./review-row.js";
import type { ReviewRule, RuleCondition, RuleConditions } from "./review-rule.js";

/**
 * How a review rule's conditions test a row: each condition compiled once (globs, regexes on RE2, sets),
 * then run over many rows. Pure.
 */

/** A condition compiled once for fast evaluation over many rows. */
export type Test = (row: ReviewRowFacts) => boolean;

function normExt(e: string): string {
  const lower = e.trim().toLowerCase();
  return lower.startsWith(".") ? lower : `.${lower}`;
}

function mimeTest(patterns: readonly string[]): Test {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of patterns) {
    const lower = p.toLowerCase();
    if (lower.endsWith("/*")) prefixes.push(lower.slice(0, -1));
    else exact.add(lower);
  }
  return (row) => {
    const mime = row.mime?.toLowerCase();
    if (mime === undefined) return false;
    return exact.has(mime) || prefixes.some((p) => mime.startsWith(p));
  };
}

/** A date bound in epoch ms: a bare date covers its whole UTC day (`from` at 00:00, `to` at 24:00). */
export function dateBoundMs(bound: string, end: boolean): number {
  // A bare date covers the whole day (UTC): `from` starts at 00:00, `to` ends at 24:00.
  if (/^\d{4}-\d{2}-\d{2}$/.test(bound)) return Date.parse(`${bound}T00:00:00Z`) + (end ? 86_400_000 : 0);
  return Date.parse(bound);
}

function compileCondition(c: RuleCondition): Test {
  switch (c.field) {
    case "extension": {
      const set = new Set(c.in.map(normExt));
      return (row) => set.has(extensionOf(row.source_path));
    }
    case "name_glob": {
      const m = picomatch(c.glob, { nocase: true, dot: true });
      return (row) => m(basenameOf(row.source_path));
    }
    case "name_regex": {
      // Linear-time (RE2): no pattern can freeze the server; one RE2 cannot run is refused (REGEX_INVALID).
      const re = compileUserRegex(c.regex, c.flags ?? "");
      return (row) => re.test(basenameOf(row.source_path));
    }
    case "path_glob": {
      const m = picomatch(c.glob, { dot: true });
      return (row) => m(row.source_path);
    }
    case "mime":
      return mimeTest(c.in);
    case "category": {
      const set = new Set(c.in.map((v) => v.toLowerCase()));
      return (row) => set.has(row.category.toLowerCase());
    }
    case "size":
      return (row) =>
        (c.min === undefined || row.size >= c.min) && (c.max === undefined || row.size <= c.max);
    case "date": {
      const from = c.from === undefined ? undefined : dateBoundMs(c.from, false);
      const to = c.to === undefined ? undefined : dateBoundMs(c.to, true);
      return (row) => (from === undefined || row.mtime >= from) && (to === undefined || row.mtime < to);
    }
    case "content_date": {
      const from = c.from === undefined ? undefined : dateBoundMs(c.from, false);
      const to = c.to === undefined ? undefined : dateBoundMs(c.to, true);
      return (row) => (from === undefined || row.date >= from) && (to === undefined || row.date < to);
    }
    case "reason": {
      const set = new Set(c.in.map((v) => v.toUpperCase()));
      return (row) => row.reason_codes.some((code) => set.has(code.toUpperCase()));
    }
    case "unit": {
      const kinds = c.in === undefined ? undefined : new Set<string>(c.in);
      return (row) => {
        const inUnit = row.unit !== null && (kinds === undefined || kinds.has(row.unit.kind));
        return inUnit === c.value;
      };
    }
    case "confidence":
      return (row) =>
        (c.min === undefined || row.confidence >= c.min) && (c.max === undefined || row.confidence <= c.max);
    case "bucket": {
      const set = new Set<string>(c.in);
      return (row) => set.has(row.review_bucket);
    }
    case "has_conflict":
      return (row) => row.has_conflict === c.value;
    case "duplicate":
      return (row) =>
        c.role === "any"
          ? row.duplicate !== undefined
          : c.role === "none"
            ? row.duplicate === undefined
            : row.duplicate === c.role;
    case "exif":
    case "taken":
    case "audio":
    case "text":
      return compileMetaCondition(c, dateBoundMs);
  }
}

/** Compiles a rule's conditions into one predicate over rows (globs and regexes are built once). */
export function compileConditions(conditions: RuleConditions): Test {
  const all = (conditions.all ?? []).map(compileCondition);
  const any = (conditions.any ?? []).map(compileCondition);
  const none = (conditions.none ?? []).map(compileCondition);
  return (row) =>
    all.every((t) => t(row)) && (any.length === 0 || any.some((t) => t(row))) && !none.some((t) => t(row));
}

/** Whether a row satisfies a rule's conditions (its `location` is not looked at: {@link compileRulePlan} tests it). */
export function matchesRule(rule: Pick<ReviewRule, "conditions">, row: ReviewRowFacts): boolean {
  return compileConditions(rule.conditions)(row);
}
