import { CategoryName } from "./manifest.js";
import { isInside } from "./posix-path.js";
import {
  basenameOf,
  dirnameOf,
  extensionOf,
  nameTokensOf,
  type ReviewRowFacts,
  stemOf,
} from "./review-row.js";
import { compileConditions, type ReviewRule, type RuleAction, type RuleCondition } from "./review-rule.js";

/** A rule drafted from examples, never saved by itself. */
export interface DraftRule {
  draft: ReviewRule;
  example_row_ids: string[];
  /** Rows beyond the examples the draft would match. */
  also_matches: string[];
  /** Where the examples disagree, and what the draft did about it. */
  warnings: string[];
}

/** Size bands (bytes, upper bound exclusive) a draft may constrain to. */
const SIZE_BANDS: ReadonlyArray<readonly [min: number, max: number, label: string]> = [
  [0, 100 * 1024, "under 100 KB"],
  [100 * 1024, 1024 ** 2, "100 KB to 1 MB"],
  [1024 ** 2, 10 * 1024 ** 2, "1 to 10 MB"],
  [10 * 1024 ** 2, 100 * 1024 ** 2, "10 to 100 MB"],
  [100 * 1024 ** 2, 1024 ** 3, "100 MB to 1 GB"],
  [1024 ** 3, Number.MAX_SAFE_INTEGER, "over 1 GB"],
];

function bandOf(size: number): number {
  return SIZE_BANDS.findIndex(([min, max]) => size >= min && size < max);
}

function globEscape(s: string): string {
  return s.replaceAll(/[*?[\]{}()!+@\\]/g, (m) => `\\${m}`);
}

/** Built-in and custom categories alike: any valid category name (the examples' own categories). */
function isCategory(value: string): boolean {
  return CategoryName.safeParse(value).success;
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/** Turns a row's target (relative to the output root) into a template, or undefined if it is not under it. */
function templateOf(row: ReviewRowFacts, outputRoot: string): string | undefined {
  const root = outputRoot.replace(/\/+$/, "");
  if (row.target_path === root || !isInside(root, row.target_path)) return undefined;
  const rel = row.target_path.slice(root.length + 1);
  const date = new Date(row.mtime);
  const yyyy = String(date.getUTCFullYear());
  const mm = String(date.getUTCMonth() + 1).padStart(2, "0");
  const dd = String(date.getUTCDate()).padStart(2, "0");
  const segments = rel.split("/");
  const file = segments.pop() ?? "";
  const dirs = segments.map((s) => {
    if (s === row.category) return "{category}";
    if (s === yyyy) return "{yyyy}";
    if (s === mm) return "{mm}";
    if (s === dd) return "{dd}";
    return s.replaceAll("{", "").replaceAll("}", "");
  });
  const ext = extensionOf(row.source_path);
  const stem = stemOf(row.source_path);
  const fileTemplate =
    file === basenameOf(row.source_path) || file === `${stem}${ext}`
      ? "{name}{ext}"
      : file.toLowerCase().endsWith(ext) && ext !== ""
        ? `${file
            .slice(0, file.length - ext.length)
            .replaceAll("{", "")
            .replaceAll("}", "")}{ext}`
        : undefined;
  if (fileTemplate === undefined || !fileTemplate.includes("{name}")) return undefined;
  return [...dirs, fileTemplate].join("/");
}

/** What the examples' names and places share: extension, name words and source folder. */
function nameConditions(examples: readonly ReviewRowFacts[], all: RuleCondition[], warnings: string[]) {
  const exts = distinct(examples.map((r) => extensionOf(r.source_path)));
  if (exts.includes("")) {
    warnings.push("Some examples have no extension; the draft does not test the extension.");
  } else {
    all.push({ field: "extension", in: exts });
    if (exts.length > 1)
      warnings.push(
        `The examples have different extensions (${exts.join(", ")}); the draft accepts any of them.`,
      );
  }
  const tokenSets = examples.map((r) => new Set(nameTokensOf(r.source_path)));
  const shared = [...(tokenSets[0] ?? new Set<string>())].filter((t) => tokenSets.every((s) => s.has(t)));
  if (shared.length > 0) {
    for (const token of shared.slice(0, 3)) all.push({ field: "name_glob", glob: `*${globEscape(token)}*` });
  } else {
    warnings.push("The example names share no word; the draft does not test the name.");
  }
  const folders = distinct(examples.map((r) => dirnameOf(r.source_path)));
  const [folder] = folders;
  if (folders.length === 1 && folder !== undefined && folder !== "") {
    all.push({ field: "path_glob", glob: `${globEscape(folder)}/*` });
  } else if (folders.length > 1) {
    warnings.push(
      `The examples come from ${folders.length} different folders; the draft does not test the folder.`,
    );
  }
  return { exts, shared };
}

/** What the examples' contents share: MIME type (or its major type) and size band. */
function contentConditions(
  examples: readonly ReviewRowFacts[],
  all: RuleCondition[],
  warnings: string[],
): void {
  const mimes = distinct(examples.map((r) => r.mime ?? ""));
  if (mimes.includes("")) warnings.push("Some examples have no MIME type; the draft does not test it.");
  else if (mimes.length === 1) all.push({ field: "mime", in: mimes });
  else {
    const majors = distinct(mimes.map((m) => m.split("/")[0] ?? ""));
    if (majors.length === 1) {
      all.push({ field: "mime", in: [`${majors[0]}/*`] });
      warnings.push(
        `The examples have different MIME types (${mimes.join(", ")}); the draft accepts ${majors[0]}/*.`,
      );
    } else {
      warnings.push(
        `The examples have unrelated MIME types (${mimes.join(", ")}); the draft does not test it.`,
      );
    }
  }
  const bands = distinct(examples.map((r) => bandOf(r.size)));
  const band = bands.length === 1 ? SIZE_BANDS[bands[0] ?? -1] : undefined;
  if (band !== undefined) {
    const [min, max] = band;
    all.push({
      field: "size",
      ...(min > 0 ? { min } : {}),
      ...(max < Number.MAX_SAFE_INTEGER ? { max: max - 1 } : {}),
    });
  } else {
    warnings.push("The example sizes fall in different size bands; the draft does not test the size.");
  }
}

/** What the person made of the examples: their category, their target as a template, skip. */
function actionsOf(
  examples: readonly ReviewRowFacts[],
  outputRoot: string,
  warnings: string[],
): RuleAction[] {
  const actions: RuleAction[] = [];
  const categories = examples.map((r) => r.category);
  const category = mostCommon(categories);
  if (category !== undefined) {
    if (distinct(categories).length > 1) {
      warnings.push(
        `The examples ended in different categories (${distinct(categories).join(", ")}); the draft sets the most common, ${category}.`,
      );
    }
    if (isCategory(category)) actions.push({ type: "set_category", category });
  }
  const templates = examples.map((r) => templateOf(r, outputRoot));
  const edited = examples.some((r) => r.edited);
  const [template] = distinct(templates);
  if (distinct(templates).length === 1 && template !== undefined) {
    if (edited) actions.push({ type: "set_target", template });
  } else if (edited) {
    warnings.push("The example targets follow no single pattern; the draft does not set the target.");
  }
  const n = examples.length;
  const skips = examples.filter((r) => r.action === "skip").length;
  if (skips === n) actions.push({ type: "skip" });
  else if (skips > 0)
    warnings.push(
      `${skips} of the ${n} examples are skipped and the others are not; the draft does not skip.`,
    );
  return actions;
}

/**
 * Drafts a rule from two or more example rows: conditions from what they share (extension, name words,
 * source folder, MIME type, size band) and actions from what the person made of them (their category,
 * their target folder as a template, skip). Where the examples disagree the draft takes the broader or the
 * most common choice and says so in `warnings`. `rows` is every row of the job, to list `also_matches`.
 */
export function draftRuleFromExamples(
  examples: readonly ReviewRowFacts[],
  rows: Iterable<ReviewRowFacts>,
  outputRoot: string,
): DraftRule {
  const warnings: string[] = [];
  const all: RuleCondition[] = [];
  const n = examples.length;
  const { exts, shared } = nameConditions(examples, all, warnings);
  contentConditions(examples, all, warnings);
  const actions = actionsOf(examples, outputRoot, warnings);
  if (all.length === 0)
    warnings.push("The examples share nothing the draft could test; it would match every row.");
  const conditions = all.length === 0 ? { any: [{ field: "confidence" as const, min: 0 }] } : { all };
  const label = shared[0] ?? exts[0] ?? "examples";
  const draft: ReviewRule = {
    name: `Like ${label} (${n} examples)`,
    enabled: true,
    priority: 0,
    stop_further_rules: false,
    conditions,
    actions,
  };
  const exampleIds = new Set(examples.map((r) => r.row_id));
  const test = compileConditions(conditions);
  const also: string[] = [];
  for (const row of rows) if (!exampleIds.has(row.row_id) && test(row)) also.push(row.row_id);
  const unmatched = examples.filter((r) => !test(r)).map((r) => r.row_id);
  if (unmatched.length > 0) warnings.push(`The draft does not match the examples ${unmatched.join(", ")}.`);
  return { draft, example_row_ids: [...exampleIds], also_matches: also, warnings };
}
