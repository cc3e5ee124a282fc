import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type CommandSpec, interpolateArgv } from "../../domain/automation.js";
import type { AutomationCommand, CommandContext, CommandResult, OutputKind } from "./commands.js";
import { secretParamValues } from "./commands.js";

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
}

/** Signals the whole process group; a group already gone is fine. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: every process of the group has exited.
  }
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

/** The environment of the child: `PATH` (so programs are found) and the names `env_allow` lists. */
function childEnv(spec: CommandSpec, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  if (env.PATH !== undefined) out.PATH = env.PATH;
  for (const name of spec.env_allow) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * Runs one attempt: spawns argv without a shell in its own process group, streams its lines, and on abort
 * sends SIGTERM to the group, then SIGKILL after the grace period. Once the leader exits the group is
 * SIGKILLed too, so nothing a task started outlives it.
 */
async function runProcess(
  spec: CommandSpec,
  argv: string[],
  ctx: CommandContext,
  options: ProcessCommandOptions,
): Promise<CommandResult> {
  const [program, ...args] = argv;
  if (program === undefined)
    return { ok: false, exitCode: null, reason: "SPAWN_FAILED", message: "empty argv" };
  const child = spawn(program, args, {
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    env: childEnv(spec, options.env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
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
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    killGroup(child, "SIGTERM");
    killTimer = setTimeout(() => killGroup(child, "SIGKILL"), options.killGraceMs);
  };
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once("exit", (code, signal) => resolve([code, signal])),
  );
  const output = Promise.all([
    pipeLines(child.stdout, "stdout", ctx),
    pipeLines(child.stderr, "stderr", ctx),
  ]);
  const [code, signal] = await exited;
  killGroup(child, "SIGKILL");
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
    async execute(ctx) {
      const argv = interpolateArgv(spec.argv, ctx.params);
      if (!argv.ok) {
        return {
          ok: false,
          exitCode: null,
          reason: "SPAWN_FAILED",
          message: `params missing for argv: ${argv.missing.join(", ")}`,
        };
      }
      return runProcess(spec, argv.argv, ctx, options);
    },
  };
}
