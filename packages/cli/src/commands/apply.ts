import { APPLY_BUCKETS, type ApplyBucket } from "@vetted/fileorg";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";
import { formatBytes, plural } from "../render/style.js";
import { resultNumber, runToEnd } from "./run-job.js";

interface ApplyOptions {
  dryRun?: boolean;
  only?: string[];
  json?: boolean;
}

function bucketsOf(only: string[] | undefined): ApplyBucket[] | undefined {
  if (only === undefined) return undefined;
  for (const bucket of only) {
    if (!(APPLY_BUCKETS as readonly string[]).includes(bucket)) {
      throw usageError(`--only takes ${APPLY_BUCKETS.join(" or ")}, not ${bucket}`);
    }
  }
  return only as ApplyBucket[];
}

/** `vetted apply <job>`: applies an analyze job's plan (or simulates it with `--dry-run`). */
async function apply(ctx: CommandContext, jobId: string, options: ApplyOptions): Promise<ExitCode> {
  const buckets = bucketsOf(options.only);
  return ctx.withBackend(async (backend) => {
    const queued = await backend.apply({
      job_id: jobId,
      ...(options.dryRun === true ? { dry_run: true } : {}),
      ...(buckets === undefined ? {} : { buckets }),
    });
    const job = await runToEnd(
      ctx,
      backend,
      queued,
      options.dryRun ? "Simulating" : "Applying",
      options.json === true,
    );
    if (options.json === true) {
      say(ctx.io, JSON.stringify(job, null, 2));
    } else if (options.dryRun === true) {
      say(
        ctx.io,
        `Dry run ${job.job_id}: would move ${plural(resultNumber(job, "would_move"), "file")}, ${resultNumber(job, "would_fail")} would fail. Nothing was touched.`,
      );
    } else {
      say(
        ctx.io,
        `${ctx.c.green("Applied")} ${job.job_id}: moved ${plural(resultNumber(job, "moved"), "file")} (${formatBytes(resultNumber(job, "bytes_moved"))}), ${resultNumber(job, "failed")} failed. Undo with: vetted undo ${job.job_id}`,
      );
    }
    const failed = resultNumber(job, options.dryRun === true ? "would_fail" : "failed");
    return failed > 0 ? EXIT.findings : EXIT.ok;
  });
}

/** Registers `apply`. */
export function registerApply(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("apply")
    .description(
      "Apply an analyze job's plan: move its auto_safe and needs_review rows (journaled, undoable)",
    )
    .argument("<job>", "the analyze job")
    .option("--dry-run", "only predict what would move and what would fail")
    .option("--only <bucket...>", `only rows of these buckets (${APPLY_BUCKETS.join(", ")})`)
    .option("--json", "print the apply job as JSON")
    .action(async (jobId: string, options: ApplyOptions) => done(await apply(ctx, jobId, options)));
}
