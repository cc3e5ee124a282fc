import type { Job } from "@vetted/fileorg";
import type { Command } from "commander";
import type { Backend } from "../backend/backend.js";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";
import { formatBytes, plural } from "../render/style.js";
import { resultNumber, runToEnd } from "./run-job.js";

interface UndoOptions {
  rows?: string;
  json?: boolean;
}

/** The apply job to undo: the job itself, or the newest real apply of an analyze job. */
async function applyJobOf(backend: Backend, jobId: string): Promise<Job> {
  const job = await backend.getJob(jobId);
  if (job.kind === "apply") return job;
  if (job.kind !== "analyze")
    throw usageError(`${jobId} is a ${job.kind} job; give an apply job (or its analyze job)`);
  let cursor: string | undefined;
  do {
    const page = await backend.listJobs({ cursor, limit: 500 });
    const found = page.items.find(
      (j) =>
        j.kind === "apply" &&
        j.manifest_job_id === jobId &&
        j.params.dry_run !== true &&
        j.status === "succeeded",
    );
    if (found !== undefined) return found;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  throw usageError(
    `Nothing of analyze job ${jobId} was applied; there is nothing to undo`,
    "NOTHING_TO_UNDO",
  );
}

/** `vetted undo <job>`: rolls an apply back (all rows, or `--rows`), every file checked by SHA-256. */
async function undo(ctx: CommandContext, jobId: string, options: UndoOptions): Promise<ExitCode> {
  const rowIds = options.rows
    ?.split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
  if (rowIds !== undefined && rowIds.length === 0) throw usageError("--rows needs row ids, comma-separated");
  return ctx.withBackend(async (backend) => {
    const target = await applyJobOf(backend, jobId);
    const queued = await backend.rollback({
      job_id: target.job_id,
      ...(rowIds === undefined ? {} : { row_ids: rowIds }),
    });
    const job = await runToEnd(ctx, backend, queued, "Undoing", options.json === true);
    const failed = resultNumber(job, "failed");
    if (options.json === true) say(ctx.io, JSON.stringify(job, null, 2));
    else {
      say(
        ctx.io,
        `${ctx.c.green("Undone")} ${target.job_id} (${job.job_id}): ${plural(resultNumber(job, "moved_back"), "file")} back where they were (${formatBytes(resultNumber(job, "bytes_moved"))})` +
          `${failed > 0 ? `, ${ctx.c.red(`${failed} could not be restored`)}` : ""}.`,
      );
    }
    return failed > 0 ? EXIT.findings : EXIT.ok;
  });
}

/** Registers `undo`. */
export function registerUndo(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("undo")
    .description("Roll an apply back: every file returns where it was, if it still has the recorded SHA-256")
    .argument("<job>", "the apply job (or the analyze job whose latest apply to undo)")
    .option("--rows <ids>", "only these rows (comma-separated row ids)")
    .option("--json", "print the rollback job as JSON")
    .action(async (jobId: string, options: UndoOptions) => done(await undo(ctx, jobId, options)));
}
