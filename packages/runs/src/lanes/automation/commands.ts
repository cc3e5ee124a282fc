import { z } from "zod";
import type { CommandInfo, TaskProcessRecord, TaskReason } from "../../domain/automation.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { CommandNotFoundError } from "./automation-errors.js";

/** Where a command's output line came from. */
export type OutputKind = "stdout" | "stderr" | "system";

/** What one attempt of a command is given. */
export interface CommandContext {
  taskId: string;
  /** 1-based. */
  attempt: number;
  /** The params, validated against the command's `params_schema`. */
  params: Record<string, unknown>;
  /** Aborted when the task is cancelled (`reason` "cancel") or times out ("timeout"): stop promptly. */
  signal: AbortSignal;
  /** Records one output line (redacted before it is stored or streamed). */
  log(line: string, kind?: OutputKind): void;
  /**
   * Records the process group an attempt started, so that a recovery after a crash ends it before the task
   * is failed or run again. Resolves once it is stored. Optional for commands that spawn nothing.
   */
  trackProcess?(record: TaskProcessRecord): Promise<void>;
}

/** How an attempt ended. `ok: false` may be retried; `message` and `reason` land on the task. */
export interface CommandResult {
  ok: boolean;
  exitCode: number | null;
  message?: string | undefined;
  reason?: TaskReason | undefined;
}

/**
 * A command of the automation lane (the port): built-ins are objects implementing it, operator commands
 * come from the commands file through `createProcessCommand`.
 */
export interface AutomationCommand {
  id: string;
  title: string;
  description: string;
  /** A JSON Schema (the subset zod's `fromJSONSchema` reads) of the params; `{}` accepts an empty object. */
  paramsSchema: Record<string, unknown>;
  tags: readonly string[];
  /** Runs only with `confirm: true`. */
  highRisk: boolean;
  /** Safe to run again: a crash re-queues its running task instead of failing it `INTERRUPTED`. */
  idempotent: boolean;
  /** Seconds before an attempt is aborted (reason `TIMEOUT`). */
  timeoutS: number;
  /** Extra attempts after a failed one (with exponential backoff and jitter). */
  retries: number;
  /** Values the task's output must never show (secret params, secret environment values). */
  secretsOf?(params: Record<string, unknown>): string[];
  /**
   * Checks the params before a task is queued (e.g. a path confined to the allowed roots): throw a typed
   * error to refuse the request with its code. Optional.
   */
  precheck?(params: Record<string, unknown>): Promise<void>;
  /** Runs one attempt; throwing counts as a failed attempt (`COMMAND_FAILED`) with the error's message. */
  execute(ctx: CommandContext): Promise<CommandResult>;
}

/** The schema every command's params default to: an object (anything goes unless the command says). */
const ANY_OBJECT = { type: "object" } as const;

/** Compiles a command's params JSON Schema to a zod schema. @throws Error naming what it cannot read */
export function compileParamsSchema(schema: Record<string, unknown>): z.ZodType {
  return z.fromJSONSchema(Object.keys(schema).length === 0 ? ANY_OBJECT : schema);
}

/** The names of params a schema marks secret (`writeOnly: true` or `format: "password"`). */
export function secretParamNames(schema: Record<string, unknown>): string[] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties as Record<string, unknown>)
    .filter(([, p]) => {
      if (typeof p !== "object" || p === null) return false;
      const prop = p as Record<string, unknown>;
      return prop.writeOnly === true || prop.format === "password";
    })
    .map(([name]) => name);
}

/** The string values of a command's secret params. */
export function secretParamValues(
  schema: Record<string, unknown>,
  params: Record<string, unknown>,
): string[] {
  return secretParamNames(schema)
    .map((name) => params[name])
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map(String);
}

/** The allowlist: commands by id, each with its compiled params schema. */
export interface CommandRegistry {
  list(): CommandInfo[];
  /** @throws COMMAND_NOT_FOUND */
  get(commandId: string): AutomationCommand;
  has(commandId: string): boolean;
  /** The params parsed by the command's schema. @throws PARAMS_INVALID listing the issues */
  parseParams(command: AutomationCommand, params: Record<string, unknown>): Record<string, unknown>;
}

/** Builds the allowlist. @throws Error on a duplicate id or a params schema zod cannot read */
export function createCommandRegistry(commands: readonly AutomationCommand[]): CommandRegistry {
  const byId = new Map<string, { command: AutomationCommand; schema: z.ZodType }>();
  for (const command of commands) {
    if (byId.has(command.id)) throw new Error(`two automation commands have the id ${command.id}`);
    byId.set(command.id, { command, schema: compileParamsSchema(command.paramsSchema) });
  }
  const entry = (commandId: string) => {
    const found = byId.get(commandId);
    if (found === undefined) throw new CommandNotFoundError(commandId, [...byId.keys()]);
    return found;
  };
  return {
    list: () =>
      [...byId.values()].map(({ command: c }) => ({
        command_id: c.id,
        title: c.title,
        description: c.description,
        params_schema: c.paramsSchema,
        tags: [...c.tags],
        high_risk: c.highRisk,
        idempotent: c.idempotent,
        timeout_s: c.timeoutS,
        max_attempts: c.retries + 1,
      })),
    get: (commandId) => entry(commandId).command,
    has: (commandId) => byId.has(commandId),
    parseParams(command, params) {
      const parsed = entry(command.id).schema.safeParse(params);
      if (!parsed.success) {
        throw new InvalidInputError(
          "PARAMS_INVALID",
          `The params do not match ${command.id}'s params_schema: ${parsed.error.issues
            .map((i) => `${i.path.join(".") || "params"}: ${i.message}`)
            .join("; ")}.`,
          { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
        );
      }
      const value = parsed.data;
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : params;
    },
  };
}
