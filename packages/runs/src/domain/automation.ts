import { z } from "zod";
import { TASK_REASONS, TASK_STATUSES } from "./task-status.js";

/*
 * The automation command lane, pure: the task state machine as an `as const` table, the task and command
 * shapes, the operator commands file's entries, `${params.x}` interpolation of an argv, and the retry
 * backoff. No I/O, no clock, no randomness (the jitter's random number is an argument).
 */

export * from "./task-status.js";

/** A task's process group as recorded in its row when the attempt started. */
export interface TaskProcessRecord {
  /** The group leader's pid (= the group id: each attempt runs in its own group). */
  pgid: number;
  /** The leader's start time (clock ticks after boot, /proc/<pid>/stat field 22): defeats pid reuse. */
  start: number;
}

/** The server process that runs a task, as recorded in its row when it claimed the task. */
export interface OwnerProcess {
  host: string;
  /** The kernel's boot id: a pid of another boot means nothing. */
  boot: string;
  pid: number;
  start: number;
}

/** How many output lines a task keeps in `output_tail`. */
export const OUTPUT_TAIL_LINES = 200;

/** A task of the automation lane, as the API answers it. */
export const AutomationTask = z
  .object({
    task_id: z.string(),
    command_id: z.string(),
    status: z.enum(TASK_STATUSES),
    attempt: z.number().int().meta({ description: "Attempts started so far (0 while first queued)" }),
    max_attempts: z.number().int(),
    exit_code: z.number().int().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    output_tail: z
      .array(z.string())
      .meta({ description: `The last ${OUTPUT_TAIL_LINES} lines, secrets redacted` }),
    message: z.string().nullable(),
    reason: z.enum(TASK_REASONS).nullable(),
    cancel_requested: z.boolean(),
  })
  .meta({ id: "AutomationTask" });
/** A task of the automation lane. */
export type AutomationTask = z.infer<typeof AutomationTask>;

/** One entry of the allowlist (`GET /api/automation/commands`). */
export const CommandInfo = z
  .object({
    command_id: z.string(),
    title: z.string(),
    description: z.string(),
    params_schema: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    high_risk: z.boolean(),
    idempotent: z.boolean(),
    timeout_s: z.number(),
    max_attempts: z.number().int(),
  })
  .meta({ id: "AutomationCommand" });
/** One entry of the allowlist. */
export type CommandInfo = z.infer<typeof CommandInfo>;

/** The body of `POST /api/automation/run`. */
export const RunTaskInput = z
  .object({
    command_id: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).default({}),
    confirm: z.boolean().optional().meta({ description: "Required (true) for a command marked high-risk" }),
  })
  .strict()
  .meta({ id: "AutomationRunInput" });
/** The body of `POST /api/automation/run`. */
export type RunTaskInput = z.input<typeof RunTaskInput>;

const COMMAND_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One operator command of the `VETTED_AUTOMATION_COMMANDS` file. */
export const CommandSpec = z
  .object({
    command_id: z.string().regex(COMMAND_ID, "command_id: lower-case letters, digits, '.', '_' or '-'"),
    title: z.string().min(1).max(200),
    description: z.string().max(2000).default(""),
    argv: z.array(z.string().max(4096)).min(1, "argv needs at least the program").max(256),
    cwd: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "An absolute directory inside the allowed roots; may hold `${params.x}`" }),
    path_params: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "path_params: param names"))
      .max(64)
      .default([])
      .meta({ description: "Params that are paths: confined to the allowed roots, symlinks resolved" }),
    env_allow: z.array(z.string().regex(ENV_NAME, "env_allow: environment variable names")).default([]),
    timeout_s: z.number().positive().max(86_400).default(600),
    retries: z.number().int().min(0).max(10).default(0),
    idempotent: z.boolean().default(false),
    high_risk: z.boolean().default(false),
    tags: z.array(z.string().max(50)).default([]),
    params_schema: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
/** One operator command, defaults applied. */
export type CommandSpec = z.infer<typeof CommandSpec>;

const PLACEHOLDER = /\$\{params\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The param names an argv refers to with `${params.x}`. */
export function argvReferences(argv: readonly string[]): string[] {
  return [...new Set(argv.flatMap((arg) => [...arg.matchAll(PLACEHOLDER)].map((m) => m[1] ?? "")))];
}

/**
 * Replaces `${params.x}` in each argv element by the param's value (strings as is, numbers and booleans
 * in their JSON form). Each element stays one argument whatever the value holds: there is no shell.
 * Answers the names missing from `params` (or not scalar) instead when there are any.
 */
export function interpolateArgv(
  argv: readonly string[],
  params: Record<string, unknown>,
): { ok: true; argv: string[] } | { ok: false; missing: string[] } {
  const missing = argvReferences(argv).filter((name) => {
    const v = params[name];
    return typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean";
  });
  if (missing.length > 0) return { ok: false, missing };
  return {
    ok: true,
    argv: argv.map((arg) => arg.replace(PLACEHOLDER, (_m, name: string) => String(params[name]))),
  };
}

/** An argv element a param turned into something a program would read as an option. */
export interface OptionLikeArg {
  /** The element's index in argv. */
  index: number;
  /** The params the element refers to. */
  params: string[];
}

/**
 * The argv elements where a param injected an option: the element as written does not start with `-`, but
 * starts with `-` once interpolated (`${params.x}` with `x = "--help"`). Elements after a literal `--`
 * element are positional for every getopt-style program and are not reported.
 */
export function optionLikeArgs(
  template: readonly string[],
  interpolated: readonly string[],
): OptionLikeArg[] {
  const found: OptionLikeArg[] = [];
  for (const [index, written] of template.entries()) {
    if (written === "--") break;
    if (written.startsWith("-")) continue;
    if (interpolated[index]?.startsWith("-") === true) {
      found.push({ index, params: argvReferences([written]) });
    }
  }
  return found;
}

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed: `baseMs · 2^(attempt-1)`,
 * capped at `maxMs`, with "full jitter" between half and all of it (`random` in [0, 1)).
 */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}

/** What a finished attempt leads to: the next status and whether to wait before another attempt. */
export type AttemptDecision =
  | { to: "success" }
  | { to: "cancelled" }
  | { to: "queued"; retryInMs: number }
  | { to: "failed" };

/** Decides the status after an attempt ended: success, cancelled, another attempt (with backoff) or failed. */
export function decideAfterAttempt(input: {
  ok: boolean;
  cancelled: boolean;
  attempt: number;
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
  random: number;
}): AttemptDecision {
  if (input.cancelled) return { to: "cancelled" };
  if (input.ok) return { to: "success" };
  if (input.attempt < input.maxAttempts) {
    return { to: "queued", retryInMs: retryDelayMs(input.attempt, input.baseMs, input.maxMs, input.random) };
  }
  return { to: "failed" };
}

/** Appends `lines` to `tail`, keeping the last {@link OUTPUT_TAIL_LINES}. */
export function appendTail(tail: readonly string[], lines: readonly string[]): string[] {
  const all = [...tail, ...lines];
  return all.length > OUTPUT_TAIL_LINES ? all.slice(all.length - OUTPUT_TAIL_LINES) : all;
}
