import { decideAfterAttempt } from "../../domain/automation.js";
import { createRedactor } from "../../kernel/redactor.js";
import type { AutomationCommand, CommandResult, OutputKind } from "./commands.js";
import type { AutomationResources } from "./resources.js";
import { recordProcess } from "./task-claims.js";
import { appendOutput, moveTask, openParams, type TaskRow } from "./task-store.js";

/** Why an attempt was aborted. */
export type AbortWhy = "cancel" | "timeout" | "shutdown";

/** Output is written in batches at most this often. */
const FLUSH_MS = 100;

/** Buffers a task's redacted output lines and writes them in batches (one transaction per batch). */
class OutputWriter {
  private buffer: { kind: OutputKind; line: string; at: number }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly r: AutomationResources,
    private readonly taskId: string,
    private readonly redact: (text: string) => string,
  ) {}

  log(line: string, kind: OutputKind): void {
    this.buffer.push({ kind, line: this.redact(line), at: this.r.clock.now() });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.chain = this.chain
      .then(() => appendOutput(this.r, this.taskId, batch))
      .catch((err: unknown) => this.r.onError(`automation: cannot store output of ${this.taskId}`, err));
    return this.chain;
  }
}

/** Runs the command once, turning a throw or an abort into a result. */
async function runOnce(
  r: AutomationResources,
  command: AutomationCommand,
  row: TaskRow,
  params: Record<string, unknown>,
  controller: AbortController,
  writer: OutputWriter,
): Promise<CommandResult> {
  try {
    return await command.execute({
      taskId: row.id,
      attempt: row.attempt,
      params,
      signal: controller.signal,
      log: (line, kind = "stdout") => writer.log(line, kind),
      trackProcess: (record) => recordProcess(r, row.id, record),
    });
  } catch (err) {
    return {
      ok: false,
      exitCode: null,
      reason: "COMMAND_FAILED",
      message: err instanceof Error ? err.message : String(err),
    };
  }
}

/** The result as the abort's cause tells it (a timeout or a shutdown outranks what the process said). */
function explain(
  result: CommandResult,
  why: AbortWhy | undefined,
  command: AutomationCommand,
): CommandResult {
  if (why === "timeout") {
    return {
      ...result,
      ok: false,
      reason: "TIMEOUT",
      message: `timed out after ${command.timeoutS} s (SIGTERM, then SIGKILL)`,
    };
  }
  if (why === "shutdown") {
    return {
      ...result,
      ok: false,
      reason: "INTERRUPTED",
      message: "INTERRUPTED: the server stopped while the task ran",
    };
  }
  if (why === "cancel") return { ...result, ok: false, reason: "CANCELLED", message: "cancelled" };
  return result;
}

/**
 * Executes one claimed attempt of a task: runs its command under a timeout and the controller's abort,
 * streams its redacted output, then moves the task (owner-guarded) to success, cancelled, failed, or back
 * to queued for another attempt after an exponential backoff with jitter.
 */
export async function executeAttempt(
  r: AutomationResources,
  row: TaskRow,
  controller: AbortController,
): Promise<void> {
  const command = r.registry.has(row.commandId) ? r.registry.get(row.commandId) : undefined;
  if (command === undefined) {
    await moveTask(
      r,
      row.id,
      "running",
      "failed",
      {
        reason: "COMMAND_UNKNOWN",
        message: `the command ${row.commandId} is no longer in the allowlist`,
      },
      { owner: r.workerId },
    );
    return;
  }
  const params = openParams(r, row);
  const redactor = createRedactor(command.secretsOf?.(params) ?? []);
  const writer = new OutputWriter(r, row.id, (text) => redactor.redactText(text));
  const timer = setTimeout(() => controller.abort("timeout"), command.timeoutS * 1000);
  const raw = await runOnce(r, command, row, params, controller, writer);
  clearTimeout(timer);
  await writer.flush();
  const why = controller.signal.aborted ? (controller.signal.reason as AbortWhy) : undefined;
  const result = explain(raw, why, command);
  await finishAttempt(r, row, command, result, why);
}

/** Moves the task after an attempt according to the domain's decision. */
async function finishAttempt(
  r: AutomationResources,
  row: TaskRow,
  command: AutomationCommand,
  result: CommandResult,
  why: AbortWhy | undefined,
): Promise<void> {
  const base = { exitCode: result.exitCode, message: result.message ?? null, reason: result.reason ?? null };
  const guard = { owner: r.workerId };
  if (why === "shutdown") {
    if (command.idempotent) {
      await moveTask(
        r,
        row.id,
        "running",
        "queued",
        {
          ...base,
          owner: null,
          leaseUntil: null,
          notBefore: r.clock.now(),
          lines: ["interrupted by a server shutdown; re-queued (the command is idempotent)"],
        },
        guard,
      );
    } else {
      await moveTask(r, row.id, "running", "failed", base, guard);
    }
    return;
  }
  const decision = decideAfterAttempt({
    ok: result.ok,
    cancelled: why === "cancel",
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    baseMs: r.retryBaseMs,
    maxMs: r.retryMaxMs,
    random: r.random(),
  });
  if (decision.to === "queued") {
    await moveTask(
      r,
      row.id,
      "running",
      "queued",
      {
        ...base,
        owner: null,
        leaseUntil: null,
        notBefore: r.clock.now() + decision.retryInMs,
        lines: [
          `attempt ${row.attempt} of ${row.maxAttempts} failed (${base.message ?? "?"}); retrying in ${decision.retryInMs} ms`,
        ],
      },
      guard,
    );
    return;
  }
  await moveTask(
    r,
    row.id,
    "running",
    decision.to,
    decision.to === "success" ? { ...base, reason: null } : base,
    guard,
  );
}
