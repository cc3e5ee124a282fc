import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { CommandSpec, TaskProcessRecord } from "../../domain/automation.js";
import type { AutomationCommand, CommandContext, CommandResult, OutputKind } from "./commands.js";
import { secretParamValues } from "./commands.js";
import { type PreparedArgv, prepareArgv } from "./param-guard.js";
import { readProcStat, signalTaskProcesses, TASK_MARKER_ENV } from "./task-processes.js";

/** The longest output line kept; longer lines are cut and marked. */
export const MAX_LINE_CHARS = 4096;

/** Environment names whose allowed values are treated as secrets in the output. */
const SECRET_ENV_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH/i;

/** What an operator command runs with besides its spec. */
export interface ProcessCommandOptions {
  /** The environment `env_allow` picks from (the server's). */
  env: NodeJS.ProcessEnv;
  /** Milliseconds between SIGTERM and SIGKILL when an attempt is aborted. */
  killGraceMs: number;
  /** The roots `path_params` and a param-filled `cwd` are confined to (none: every such path is refused). */
  allowedRoots?: readonly string[];
}

/**
 * Signals every process of the attempt: its process group, the processes carrying the task's marker (a
 * child that called `setsid` keeps it) and their descendants. A group already gone is fine.
 */
function killAttempt(
  taskId: string,
  child: ChildProcess,
  record: TaskProcessRecord | null,
  signal: NodeJS.Signals,
): void {
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // ESRCH: every process of the group has exited.
    }
  }
  signalTaskProcesses(taskId, record, signal);
}

/** Forwards each line of a stream to the task's log, cutting overly long lines. */
function pipeLines(
  stream: NodeJS.ReadableStream | null,
  kind: OutputKind,
  ctx: CommandContext,
): Promise<void> {
  if (stream === null) return Promise.resolve();
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on("line", (line: string) =>
    ctx.log(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} [cut]` : line, kind),
  );
  return new Promise((resolve) => lines.once("close", () => resolve()));
}

/**
 * The environment of the child: `PATH` (so programs are found), the names `env_allow` lists, and the
 * task's marker (`VETTED_TASK_ID`), by which every process the task starts is found again.
 */
function childEnv(spec: CommandSpec, env: NodeJS.ProcessEnv, taskId: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (env.PATH !== undefined) out.PATH = env.PATH;
  for (const name of spec.env_allow) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  out[TASK_MARKER_ENV] = taskId;
  return out;
}

/**
 * Runs one attempt: spawns argv without a shell in its own process group, records the group (for a
 * recovery after a crash), streams its lines, and on abort sends SIGTERM to every process of the task, then
 * SIGKILL after the grace period. Once the leader exits the rest are SIGKILLed too (those that left the
 * group with `setsid` included), so nothing a task started outlives it.
 */
async function runProcess(
  spec: CommandSpec,
  prepared: PreparedArgv,
  ctx: CommandContext,
  options: ProcessCommandOptions,
): Promise<CommandResult> {
  const [program, ...args] = prepared.argv;
  if (program === undefined)
    return { ok: false, exitCode: null, reason: "SPAWN_FAILED", message: "empty argv" };
  const child = spawn(program, args, {
    ...(prepared.cwd === undefined ? {} : { cwd: prepared.cwd }),
    env: childEnv(spec, options.env, ctx.taskId),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Listened to before anything is awaited: a short command can end, and its pipes close, while its start
  // is being recorded; an end or a close nobody listened to yet would never be seen.
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once("exit", (code, signal) => resolve([code, signal])),
  );
  const output = Promise.all([
    pipeLines(child.stdout, "stdout", ctx),
    pipeLines(child.stderr, "stderr", ctx),
  ]);
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once("spawn", () => resolve(undefined));
    child.once("error", (err) => resolve(err));
  });
  if (spawned !== undefined) {
    return {
      ok: false,
      exitCode: null,
      reason: "SPAWN_FAILED",
      message: `cannot start ${program}: ${spawned.message}`,
    };
  }
  ctx.log(`started ${program} (pid ${child.pid ?? "?"})`, "system");
  const leader = child.pid === undefined ? undefined : readProcStat(child.pid);
  const record = leader === undefined ? null : { pgid: leader.pid, start: leader.start };
  if (record !== null) await ctx.trackProcess?.(record);
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    killAttempt(ctx.taskId, child, record, "SIGTERM");
    killTimer = setTimeout(() => killAttempt(ctx.taskId, child, record, "SIGKILL"), options.killGraceMs);
  };
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const [code, signal] = await exited;
  killAttempt(ctx.taskId, child, record, "SIGKILL");
  await output;
  if (killTimer !== undefined) clearTimeout(killTimer);
  ctx.signal.removeEventListener("abort", onAbort);
  if (code === 0) return { ok: true, exitCode: 0, message: "exited 0" };
  return {
    ok: false,
    exitCode: code,
    reason: "EXIT_NONZERO",
    message: code === null ? `ended by ${signal ?? "a signal"}` : `exited ${code}`,
  };
}

/** Turns an operator command of the commands file into a command of the lane. */
export function createProcessCommand(spec: CommandSpec, options: ProcessCommandOptions): AutomationCommand {
  const paramsSchema = spec.params_schema ?? {};
  const roots = options.allowedRoots ?? [];
  return {
    id: spec.command_id,
    title: spec.title,
    description: spec.description,
    paramsSchema,
    tags: spec.tags,
    highRisk: spec.high_risk,
    idempotent: spec.idempotent,
    timeoutS: spec.timeout_s,
    retries: spec.retries,
    secretsOf: (params) => [
      ...secretParamValues(paramsSchema, params),
      ...spec.env_allow
        .filter((name) => SECRET_ENV_NAME.test(name))
        .map((name) => options.env[name])
        .filter((v): v is string => v !== undefined && v.length > 0),
    ],
    async precheck(params) {
      prepareArgv(spec, params, roots);
    },
    async execute(ctx) {
      let prepared: PreparedArgv;
      try {
        // Again at the start: a symbolic link may have changed since the task was queued.
        prepared = prepareArgv(spec, ctx.params, roots);
      } catch (err) {
        return {
          ok: false,
          exitCode: null,
          reason: "SPAWN_FAILED",
          message: err instanceof Error ? err.message : String(err),
        };
      }
      return runProcess(spec, prepared, ctx, options);
    },
  };
}
