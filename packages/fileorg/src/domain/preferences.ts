import picomatch from "picomatch";
import { z } from "zod";
import { DEFAULT_NAMING_TEMPLATE } from "./job.js";
import { ROW_STATUSES } from "./manifest.js";
import { PathInput } from "./path-input.js";
import { isInside } from "./posix-path.js";
import { ReviewBucketEnum } from "./review-row.js";
import { ReasonCode, strictFields } from "./row-filter.js";
import { STRATEGY_PACKS } from "./strategy-packs.js";
import { checkNamingTemplate } from "./template-check.js";

const Id = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\w.-]+$/, "letters, digits, `_`, `-` and `.` only");
const Name = z.string().trim().min(1).max(200);
const packIds = STRATEGY_PACKS.map((p) => p.id);

/** A naming template string, checked for unknown tokens and unsafe results. */
export const NamingTemplateString = z
  .string()
  .max(500)
  .superRefine((template, ctx) => {
    for (const issue of checkNamingTemplate(template)) {
      ctx.addIssue({
        code: "custom",
        message: `${issue.part}: ${issue.message}`,
        params: { part: issue.part },
      });
    }
  });

const StrategyPackId = z.string().refine((id) => packIds.includes(id), {
  message: `unknown strategy pack; use one of ${packIds.join(", ")}`,
});

/** A saved naming template `{id?, name, template}`. */
export const NamingTemplateItem = z
  .object({ id: Id.optional(), name: Name, template: NamingTemplateString })
  .meta({ id: "NamingTemplateItem" });
/** A saved naming template. */
export type NamingTemplateItem = z.infer<typeof NamingTemplateItem>;

/** What the inbox does by itself with a watch source's stable batches. */
export const AUTO_APPLY_MODES = ["off", "auto_safe"] as const;
/** What the inbox does by itself with a watch source's stable batches. */
export type AutoApplyMode = (typeof AUTO_APPLY_MODES)[number];

/** A folder the inbox watches. `stability_ms` defaults to 5000. */
export const WatchSourceItem = z
  .object({
    id: Id.optional(),
    name: Name,
    path: z
      .string()
      .min(1)
      .refine((p) => p.startsWith("/") || /^[a-z]:[\\/]/i.test(p), "must be an absolute path"),
    enabled: z.boolean(),
    strategy_pack_id: StrategyPackId.optional(),
    recursive: z.boolean().optional(),
    ignore: z
      .array(
        z
          .string()
          .min(1)
          .superRefine((glob, ctx) => {
            try {
              picomatch.makeRe(glob);
            } catch (err) {
              ctx.addIssue({ code: "custom", message: `invalid glob: ${(err as Error).message}` });
            }
          }),
      )
      .max(200)
      .optional(),
    stability_ms: z.number().int().min(0).max(3_600_000).optional(),
    auto_apply: z
      .enum(AUTO_APPLY_MODES)
      .optional()
      .meta({
        description:
          "`auto_safe`: a stable batch is analyzed by itself and its auto_safe rows applied at once (journaled, " +
          "undoable); the rest wait for review. `off` (the default when absent): batches wait in the inbox.",
      }),
  })
  .meta({ id: "WatchSourceItem" });
/** A watched folder. */
export type WatchSourceItem = z.infer<typeof WatchSourceItem>;

/** Fields a saved view may sort by. */
export const VIEW_SORT_FIELDS = [
  "source_path",
  "target_path",
  "size",
  "mtime",
  "category",
  "confidence",
  "review_bucket",
  "status",
  "priority",
] as const;

/** A saved manifest filter and sort order. */
export const ViewItem = z
  .object({
    id: Id.optional(),
    name: Name,
    filter: strictFields(
      {
        bucket: ReviewBucketEnum.optional(),
        status: z.enum(ROW_STATUSES).optional(),
        category: z.string().min(1).optional(),
        reason: ReasonCode.optional(),
        q: z.string().min(1).max(500).optional(),
      },
      "filter",
    ).default({}),
    sort: z
      .array(z.object({ field: z.enum(VIEW_SORT_FIELDS), direction: z.enum(["asc", "desc"]).default("asc") }))
      .max(5)
      .default([]),
  })
  .meta({ id: "ViewItem" });
/** A saved view. */
export type ViewItem = z.infer<typeof ViewItem>;

/** An OpenAI-compatible classifier endpoint. On input, an absent `api_key` keeps the stored one; `null` clears it. */
export const AiClassifierInput = z.object({
  endpoint_url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  model: z.string().min(1).max(200),
  api_key: z.string().min(1).max(500).nullable().optional(),
});

const Limits = z.object({
  /** A file larger than this is a blocked row (`FILE_TOO_LARGE`). */
  max_file_bytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 50),
  /** An analyze that finds more files stops with JOB_LIMIT_EXCEEDED. */
  max_files_per_job: z.number().int().positive().max(10_000_000),
  /** An analyze whose files add up to more bytes stops with JOB_LIMIT_EXCEEDED. */
  max_total_bytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1),
});

/** Runtime settings as a client sends them (every field optional: what is given replaces what is stored). */
export const RuntimeSettingsInput = z
  .object({
    allowed_roots: z
      .array(
        PathInput.refine((p) => p.startsWith("/") || /^[a-z]:[\\/]/i.test(p), "must be an absolute path"),
      )
      .max(100)
      .optional(),
    default_output_root: PathInput.refine(
      (p) => p.startsWith("/") || /^[a-z]:[\\/]/i.test(p),
      "must be an absolute path",
    )
      .nullable()
      .optional(),
    workers: z.number().int().min(1).max(64).optional(),
    limits: Limits.partial().optional(),
    default_naming_template: NamingTemplateString.optional(),
    active_strategy_pack: StrategyPackId.optional(),
    ai_classifier: AiClassifierInput.nullable().optional(),
  })
  .meta({ id: "RuntimeSettingsInput" });
/** Runtime settings as sent. */
export type RuntimeSettingsInput = z.infer<typeof RuntimeSettingsInput>;

/** Runtime settings as stored (the API key in full; never answered as such). */
export interface RuntimeSettings {
  allowed_roots: string[];
  default_output_root: string | null;
  workers: number;
  limits: z.infer<typeof Limits>;
  default_naming_template: string;
  active_strategy_pack: string;
  ai_classifier: { endpoint_url: string; model: string; api_key: string | null } | null;
}

/** Runtime settings as answered: the API key masked. */
export const RuntimeSettingsView = z
  .object({
    allowed_roots: z.array(z.string()),
    default_output_root: z.string().nullable(),
    workers: z.number().int(),
    limits: Limits,
    effective_roots: z.array(z.string()).meta({
      description: "The roots paths may lie in: the environment's roots, narrowed by allowed_roots when set",
    }),
    default_naming_template: z.string(),
    active_strategy_pack: z.string(),
    ai_classifier: z
      .object({
        endpoint_url: z.string(),
        model: z.string(),
        api_key: z.string().nullable().meta({ description: "Masked: only the last 4 characters are shown" }),
        api_key_set: z.boolean(),
      })
      .nullable(),
    version: z.number().int(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "RuntimeSettings" });
/** Runtime settings as answered. */
export type RuntimeSettingsView = z.infer<typeof RuntimeSettingsView>;

/** The settings used until someone saves their own. */
export const DEFAULT_RUNTIME_SETTINGS: RuntimeSettings = {
  allowed_roots: [],
  default_output_root: null,
  workers: 4,
  limits: { max_file_bytes: 2 ** 40, max_files_per_job: 1_000_000, max_total_bytes: 2 ** 50 },
  default_naming_template: DEFAULT_NAMING_TEMPLATE,
  active_strategy_pack: "downloads-cleanup",
  ai_classifier: null,
};

/** Masks a secret, keeping its last 4 characters when it is long enough to stay secret. */
export function maskSecret(secret: string): string {
  return secret.length >= 12 ? `••••••••${secret.slice(-4)}` : "••••••••";
}

/** Merges a runtime input onto stored settings; an API key equal to its own mask keeps the stored key. */
export function mergeRuntimeSettings(current: RuntimeSettings, input: RuntimeSettingsInput): RuntimeSettings {
  const next: RuntimeSettings = {
    ...current,
    limits: { ...current.limits, ...stripUndefined(input.limits ?? {}) },
  };
  if (input.allowed_roots !== undefined) next.allowed_roots = input.allowed_roots;
  if (input.default_output_root !== undefined) next.default_output_root = input.default_output_root;
  if (input.workers !== undefined) next.workers = input.workers;
  if (input.default_naming_template !== undefined)
    next.default_naming_template = input.default_naming_template;
  if (input.active_strategy_pack !== undefined) next.active_strategy_pack = input.active_strategy_pack;
  if (input.ai_classifier === null) next.ai_classifier = null;
  else if (input.ai_classifier !== undefined) {
    const storedKey = current.ai_classifier?.api_key ?? null;
    const given = input.ai_classifier.api_key;
    const apiKey =
      given === undefined || (given !== null && storedKey !== null && given === maskSecret(storedKey))
        ? storedKey
        : given;
    next.ai_classifier = {
      endpoint_url: input.ai_classifier.endpoint_url,
      model: input.ai_classifier.model,
      api_key: apiKey,
    };
  }
  return next;
}

function stripUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** One problem found by runtime validation: where, a stable code, and what to do. */
export interface RuntimeProblem {
  /** JSON Pointer into the settings, e.g. `/allowed_roots/1`. */
  pointer: string;
  code: string;
  message: string;
}

/** Checks that need no disk: limits sane, output root under an allowed root. */
export function checkRuntimeSettings(s: RuntimeSettings): RuntimeProblem[] {
  // No allowed_roots is no problem: the environment's roots apply unnarrowed.
  const problems: RuntimeProblem[] = [];
  if (
    s.default_output_root !== null &&
    s.allowed_roots.length > 0 &&
    !s.allowed_roots.some((root) => isInside(root, s.default_output_root ?? ""))
  ) {
    problems.push({
      pointer: "/default_output_root",
      code: "OUTSIDE_ALLOWED_ROOTS",
      message: "the default output root must be inside one of the allowed roots",
    });
  }
  if (s.limits.max_file_bytes < 1024) {
    problems.push({
      pointer: "/limits/max_file_bytes",
      code: "LIMIT_TOO_SMALL",
      message: "a size limit under 1 KiB would refuse almost every file",
    });
  }
  if (s.workers > 32) {
    problems.push({
      pointer: "/workers",
      code: "TOO_MANY_WORKERS",
      message: "more than 32 workers only adds contention",
    });
  }
  return problems;
}
