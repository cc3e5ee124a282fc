import { z } from "zod";
import { CategoryName } from "./manifest.js";
import { ReviewBucketEnum } from "./review-row.js";
import type { ReviewRule, RuleAction, RuleCondition } from "./review-rule.js";
import { ReasonCode, strictFields } from "./row-filter.js";
import { locationProblem } from "./rule-locations.js";
import { UNIT_KINDS } from "./units.js";

/**
 * The rules file: review rules a person keeps in one YAML file under version control, in a shape made for
 * writing by hand. Each rule turns into exactly one {@link ReviewRule} of the existing rule engine (its
 * filters are that engine's conditions, its actions that engine's actions, its location block its
 * `location`); the file's order is the rules' priority (location rules first, see `rankByLocation`).
 * Pure: the schema and the translation, no I/O.
 */

/** The version of the rules file format this package reads. */
export const RULES_FILE_VERSION = 1;

const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);
const DateBound = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: "expected a date (2024-05-31) or a date-time with an offset (2024-05-31T09:00:00+02:00)",
});
const Range = (what: string, number: z.ZodNumber) =>
  strictFields(
    {
      min: number.optional().meta({ description: `The smallest ${what} that matches` }),
      max: number.optional().meta({ description: `The largest ${what} that matches` }),
    },
    what,
  );
const DateRange = (what: string) =>
  strictFields(
    {
      from: DateBound.optional().meta({
        description: `Earliest ${what} (inclusive); a date covers its UTC day`,
      }),
      to: DateBound.optional().meta({ description: `Latest ${what} (inclusive); a date covers its UTC day` }),
    },
    what,
  );

const TagGlob = z.string().min(1).max(500);

const FILTER_FIELDS = {
  extension: oneOrMany(z.string().min(1)).meta({
    description: "File extension(s), with or without the dot, any case: `pdf` or `[jpg, jpeg]`",
  }),
  name: z.string().min(1).meta({ description: "A glob over the file name (any case): `invoice*.pdf`" }),
  name_regex: z
    .string()
    .min(1)
    .meta({ description: "A regular expression over the file name (RE2: linear time, no lookaround)" }),
  path: z.string().min(1).meta({ description: "A glob over the file's absolute path: `**/Scans/**`" }),
  mime: oneOrMany(z.string().min(1)).meta({ description: "MIME type(s); `image/*` matches a family" }),
  category: oneOrMany(z.string().min(1)).meta({ description: "The row's planned category(ies)" }),
  size: Range("size in bytes", z.number().int().nonnegative()),
  date: DateRange("content date (EXIF, PDF, Office, file name, else modification time)"),
  modified: DateRange("modification time"),
  confidence: Range("classification confidence", z.number().min(0).max(1)),
  bucket: oneOrMany(ReviewBucketEnum).meta({ description: "Review bucket(s) of the row" }),
  reason: oneOrMany(ReasonCode).meta({ description: "Reason code(s) of the row; any of them matches" }),
  conflict: z.boolean().meta({ description: "Whether a conflict involving the row is open" }),
  duplicate: z.union([z.boolean(), z.enum(["original", "copy"])]).meta({
    description:
      "true: one of several files with the same content; false: in no such group; original / copy: the group's original (by the job's detect_original_by policy or a person's choice) or a copy",
  }),
  unit: z.union([z.boolean(), oneOrMany(z.enum(UNIT_KINDS))]).meta({
    description: "true: inside a folder kept whole; false: in none; kind(s): inside a unit of that kind",
  }),
  exif: strictFields(
    {
      make: TagGlob.optional().meta({
        description: "EXIF Make: a glob or the exact text, any case: `Canon`",
      }),
      model: TagGlob.optional().meta({
        description: "EXIF Model: a glob or the exact text, any case: `EOS *`",
      }),
    },
    "exif",
  ).meta({ description: "A photo's camera (EXIF); `{}`: any photo with a camera" }),
  taken: DateRange("date a photo was taken (EXIF DateTimeOriginal)"),
  audio: strictFields(
    {
      artist: TagGlob.optional().meta({ description: "Artist tag: a glob or the exact text, any case" }),
      album_artist: TagGlob.optional().meta({ description: "Album artist tag" }),
      album: TagGlob.optional().meta({ description: "Album tag" }),
      title: TagGlob.optional().meta({ description: "Title tag" }),
      genre: TagGlob.optional().meta({ description: "Genre tag" }),
      year: Range("year tag", z.number().int()).optional(),
    },
    "audio",
  ).meta({ description: "A track's tags (ID3, Vorbis comments, MP4…); `{}`: any tagged track" }),
  text: strictFields(
    {
      contains: oneOrMany(z.string().min(1).max(1000))
        .optional()
        .meta({ description: "A word or phrase (or a list: any of them), any case" }),
      regex: z
        .string()
        .min(1)
        .optional()
        .meta({ description: "A regular expression (RE2; `(?i)` for any case) over the excerpt" }),
    },
    "text",
  ).meta({
    description:
      "The first 16 KiB of a text file (.txt, .md, .csv, .json…), read at analyze; a PDF's first pages when analyze read them (a rule in effect at analyze tests text, or the request sets read_pdf_text)",
  }),
};

const FILTER_SHAPE = Object.fromEntries(
  Object.entries(FILTER_FIELDS).map(([key, schema]) => [key, schema.optional()]),
) as { [K in keyof typeof FILTER_FIELDS]: z.ZodOptional<(typeof FILTER_FIELDS)[K]> };

/** Filters of a rule: each key is one test on a row. */
export const RulesFileFilters = strictFields(FILTER_SHAPE, "filter").meta({ id: "RulesFileFilters" });
/** Filters of a rule. */
export type RulesFileFilters = z.infer<typeof RulesFileFilters>;

/** What a rule does to the rows it matches, applied in this order. */
export const RulesFileActions = strictFields(
  {
    category: CategoryName.optional().meta({ description: "Files the row under this category" }),
    target: z.string().min(1).optional().meta({
      description:
        "A naming template for the new target, relative to the job's output folder: `{category}/{yyyy}/{name}`",
    }),
    skip: z.literal(true).optional().meta({ description: "The row is skipped (never moved)" }),
    trash: z.literal(true).optional().meta({
      description:
        "The file is moved to the system trash at apply (freedesktop.org trash, with its .trashinfo; rollback restores it)",
    }),
    copy: z.literal(true).optional().meta({
      description:
        "The file is copied to its target at apply and the source stays (never overwriting; the copy's SHA-256 is checked; rollback removes exactly that copy)",
    }),
    approve: z.literal(true).optional().meta({
      description: "Approves rows that need review (blocked and conflicting rows stay as they are)",
    }),
  },
  "action",
).meta({ id: "RulesFileActions" });
/** What a rule does. */
export type RulesFileActions = z.infer<typeof RulesFileActions>;

/** One rule of the file. */
export const RulesFileRule = strictFields(
  {
    name: z.string().trim().min(1).max(200).meta({ description: "Unique in the file; errors name it" }),
    enabled: z.boolean().optional().meta({ description: "false: the rule is kept but not applied" }),
    filters: RulesFileFilters.optional().meta({ description: "Every filter must hold" }),
    any: RulesFileFilters.optional().meta({ description: "At least one of these filters must hold" }),
    exclude: RulesFileFilters.optional().meta({ description: "None of these filters may hold" }),
    actions: RulesFileActions,
    continue: z.boolean().optional().meta({
      description:
        "true: later rules may still act on rows this rule matched (by default the first match wins)",
    }),
  },
  "rule",
).meta({ id: "RulesFileRule" });
/** One rule of the file. */
export type RulesFileRule = z.infer<typeof RulesFileRule>;

/** A folder and the rules that apply only to the rows inside it. */
export const RulesFileLocation = strictFields(
  {
    path: z
      .string()
      .min(1)
      .superRefine((path, ctx) => {
        const problem = locationProblem(path);
        if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
      })
      .meta({
        description:
          "The folder: absolute (`/srv/scans`), `~/…` (the home directory of the process running the engine) or relative to the analyzed folder (`Scans`); no `..`",
      }),
    rules: z.array(RulesFileRule).min(1).meta({
      description: "Match only rows whose source path is inside the folder; in order, the first match wins",
    }),
  },
  "location",
).meta({ id: "RulesFileLocation" });
/** A folder and its rules. */
export type RulesFileLocation = z.infer<typeof RulesFileLocation>;

/** A rules file. */
export const RulesFile = strictFields(
  {
    version: z.literal(RULES_FILE_VERSION).meta({ description: "The format version: 1" }),
    locations: z.array(RulesFileLocation).min(1).optional().meta({
      description:
        "Rules per folder: a row meets the rules of the most specific location that contains it first, then those of the outer ones, then the global `rules`",
    }),
    rules: z.array(RulesFileRule).min(1).optional().meta({
      description: "Rules for every row, after any location's: evaluated in order, the first match wins",
    }),
  },
  "rules file",
)
  .refine((file) => file.rules !== undefined || file.locations !== undefined, {
    message: "a rules file needs `rules:` or `locations:` (or both)",
  })
  .meta({
    id: "VettedRulesFile",
    title: "Vetted rules file",
    description: "Review rules for @vetted/fileorg, applied to an analyze job's manifest (vetted rules run)",
  });
/** A rules file. */
export type RulesFile = z.infer<typeof RulesFile>;

/** Where, in the file, each condition and action of a translated rule came from (keys under the rule). */
export interface RuleSources {
  conditions: Record<"all" | "any" | "none", string[][]>;
  actions: string[][];
}

const asList = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function conditionOf(key: keyof RulesFileFilters, f: RulesFileFilters): RuleCondition | undefined {
  switch (key) {
    case "extension":
      return f.extension === undefined ? undefined : { field: "extension", in: asList(f.extension) };
    case "name":
      return f.name === undefined ? undefined : { field: "name_glob", glob: f.name };
    case "name_regex":
      return f.name_regex === undefined ? undefined : { field: "name_regex", regex: f.name_regex };
    case "path":
      return f.path === undefined ? undefined : { field: "path_glob", glob: f.path };
    case "mime":
      return f.mime === undefined ? undefined : { field: "mime", in: asList(f.mime) };
    case "category":
      return f.category === undefined ? undefined : { field: "category", in: asList(f.category) };
    case "size":
      return f.size === undefined ? undefined : { field: "size", ...f.size };
    case "date":
      return f.date === undefined ? undefined : { field: "content_date", ...f.date };
    case "modified":
      return f.modified === undefined ? undefined : { field: "date", ...f.modified };
    case "confidence":
      return f.confidence === undefined ? undefined : { field: "confidence", ...f.confidence };
    case "bucket":
      return f.bucket === undefined ? undefined : { field: "bucket", in: asList(f.bucket) };
    case "reason":
      return f.reason === undefined ? undefined : { field: "reason", in: asList(f.reason) };
    case "conflict":
      return f.conflict === undefined ? undefined : { field: "has_conflict", value: f.conflict };
    case "duplicate":
      if (f.duplicate === undefined) return undefined;
      return {
        field: "duplicate",
        role: f.duplicate === true ? "any" : f.duplicate === false ? "none" : f.duplicate,
      };
    case "unit":
      if (f.unit === undefined) return undefined;
      return typeof f.unit === "boolean"
        ? { field: "unit", value: f.unit }
        : { field: "unit", in: asList(f.unit), value: true };
    case "exif":
      return f.exif === undefined ? undefined : { field: "exif", ...f.exif };
    case "taken":
      return f.taken === undefined ? undefined : { field: "taken", ...f.taken };
    case "audio":
      return f.audio === undefined ? undefined : { field: "audio", ...f.audio };
    case "text":
      if (f.text === undefined) return undefined;
      return {
        field: "text",
        ...(f.text.contains === undefined ? {} : { contains: asList(f.text.contains) }),
        ...(f.text.regex === undefined ? {} : { regex: f.text.regex }),
      };
  }
}

function conditionsOf(filters: RulesFileFilters | undefined, group: string) {
  const conditions: RuleCondition[] = [];
  const sources: string[][] = [];
  for (const key of Object.keys(FILTER_SHAPE) as Array<keyof RulesFileFilters>) {
    const c = filters === undefined ? undefined : conditionOf(key, filters);
    if (c === undefined) continue;
    conditions.push(c);
    sources.push([group, key]);
  }
  return { conditions, sources };
}

/**
 * Turns a rule of the file into a review rule of the engine (not yet validated by {@link ReviewRule}), and
 * where each of its conditions and actions came from. `index` is the rule's place in the file; the file's
 * order becomes the priority (the first rule ranks highest) and, unless `continue: true`, a match ends the
 * list for that row.
 */
export function reviewRuleOf(
  rule: RulesFileRule,
  index: number,
  count: number,
  location?: string,
): { rule: z.input<typeof ReviewRule>; sources: RuleSources } {
  const all = conditionsOf(rule.filters, "filters");
  const any = conditionsOf(rule.any, "any");
  const none = conditionsOf(rule.exclude, "exclude");
  const actions: RuleAction[] = [];
  const actionSources: string[][] = [];
  const a = rule.actions;
  if (a.category !== undefined) {
    actions.push({ type: "set_category", category: a.category });
    actionSources.push(["actions", "category"]);
  }
  if (a.target !== undefined) {
    actions.push({ type: "set_target", template: a.target });
    actionSources.push(["actions", "target"]);
  }
  if (a.skip === true) {
    actions.push({ type: "skip" });
    actionSources.push(["actions", "skip"]);
  }
  if (a.trash === true) {
    actions.push({ type: "trash" });
    actionSources.push(["actions", "trash"]);
  }
  if (a.copy === true) {
    actions.push({ type: "copy" });
    actionSources.push(["actions", "copy"]);
  }
  if (a.approve === true) {
    actions.push({ type: "approve" });
    actionSources.push(["actions", "approve"]);
  }
  const groups = {
    ...(all.conditions.length > 0 ? { all: all.conditions } : {}),
    ...(any.conditions.length > 0 ? { any: any.conditions } : {}),
    ...(none.conditions.length > 0 ? { none: none.conditions } : {}),
  };
  return {
    rule: {
      name: rule.name,
      enabled: rule.enabled ?? true,
      priority: count - index,
      stop_further_rules: rule.continue !== true,
      ...(location === undefined ? {} : { location }),
      conditions: groups,
      actions,
    },
    sources: {
      conditions: { all: all.sources, any: any.sources, none: none.sources },
      actions: actionSources,
    },
  };
}

/**
 * The path, under the rule in the file, of an issue the engine's {@link ReviewRule} schema found at `path`
 * in the translated rule (`conditions.all.2.min` → `filters.size.min`).
 */
export function filePathOf(path: readonly PropertyKey[], sources: RuleSources): PropertyKey[] {
  const [head, group, index, ...rest] = path;
  if (head === "conditions" && (group === "all" || group === "any" || group === "none")) {
    const source = typeof index === "number" ? sources.conditions[group][index] : undefined;
    if (source === undefined) return [{ all: "filters", any: "any", none: "exclude" }[group]];
    // A condition's own fields are named as in the file (`regex` → the `name_regex` filter itself).
    const inner = rest.filter((k) => k === "min" || k === "max" || k === "from" || k === "to");
    return [...source, ...inner];
  }
  if (head === "conditions") return ["filters"];
  if (head === "actions") {
    const source = typeof group === "number" ? sources.actions[group] : undefined;
    return source ?? ["actions"];
  }
  return path.filter((k) => typeof k !== "symbol");
}

/** The JSON Schema of the rules file (draft 2020-12), for editors: `# yaml-language-server: $schema=…`. */
export function rulesFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(RulesFile, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
}

/** The published JSON Schema file's text: {@link rulesFileJsonSchema}, two-space indented, a final newline. */
export function rulesFileJsonSchemaText(): string {
  return `${JSON.stringify(rulesFileJsonSchema(), null, 2)}\n`;
}
