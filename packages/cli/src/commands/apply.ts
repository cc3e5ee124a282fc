import { APPLY_BUCKETS, type ApplyBucket, type ApplyPlan, ApplyResult, type Job } from "@vetted/fileorg";
import type { Command } from "commander";
import type { Backend } from "../backend/backend.js";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";
import { renderApplyBreakdown } from "../render/apply-text.js";
import { formatBytes, plural } from "../render/style.js";
import { confirmOrRefuse } from "./confirm.js";
import { resultNumber, runToEnd } from "./run-job.js";

interface ApplyOptions {
  dryRun?: boolean;
  only?: string[];
  rows?: string;
  yes?: boolean;
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

function rowIdsOf(rows: string | undefined): string[] | undefined {
  if (rows === undefined) return undefined;
  const ids = rows.split(/[\s,]+/).filter(Boolean);
  if (ids.length === 0) throw usageError("--rows takes row ids, comma-separated");
  return ids;
}

/** The question asked before a real apply that leaves files unreviewed or in conflict, or undefined. */
function questionOf(plan: ApplyPlan): string | undefined {
  const unreviewed = plan.stays.unreviewed ?? 0;
  const conflicts = plan.stays.conflict_open ?? 0;
  if (unreviewed === 0 && conflicts === 0) return undefined;
  return `Move ${plural(plan.rows, "file")}? ${unreviewed} unreviewed and ${conflicts} in an open conflict stay where they are`;
}

/**
 * A real apply asks what it would move and leave first, then for a confirmation naming what stays
 * unreviewed or in conflict (or `--yes`; without a terminal it refuses, never waiting on a prompt nobody
 * sees). Answers the plan hash to apply, or undefined when the person said no.
 */
async function confirmPlan(
  ctx: CommandContext,
  backend: Backend,
  request: { job_id: string; buckets?: ApplyBucket[]; row_ids?: string[] },
  options: ApplyOptions,
): Promise<{ planHash: string | null } | undefined> {
  const plan = await backend.planApply(request);
  if (options.yes !== true) {
    const leftBehind = questionOf(plan);
    if (leftBehind !== undefined && options.json !== true) {
      ctx.io.stderr.write(`${renderApplyBreakdown(plan, ctx.c)}\n`);
    }
    if (!(await confirmOrRefuse(ctx, leftBehind ?? `Move ${plural(plan.rows, "file")}?`))) return undefined;
  }
  return { planHash: plan.plan_hash };
}

function report(ctx: CommandContext, job: Job, dryRun: boolean): void {
  const parsed = ApplyResult.safeParse(job.result);
  if (dryRun) {
    say(
      ctx.io,
      `Dry run ${job.job_id}: would move ${plural(resultNumber(job, "would_move"), "file")}, ${resultNumber(job, "would_fail")} would fail. Nothing was touched.`,
    );
  } else {
    say(
      ctx.io,
      `${ctx.c.green("Applied")} ${job.job_id}: moved ${plural(resultNumber(job, "moved"), "file")} (${formatBytes(resultNumber(job, "bytes_moved"))}), ${resultNumber(job, "failed")} failed. Undo with: ${ctx.command} undo ${job.job_id}`,
    );
  }
  const byError = parsed.success ? Object.entries(parsed.data.by_error) : [];
  if (byError.length > 0) say(ctx.io, `Failures: ${byError.map(([code, n]) => `${code} ${n}`).join(", ")}`);
  if (parsed.success) {
    const breakdown = renderApplyBreakdown(parsed.data, ctx.c);
    if (breakdown !== "") say(ctx.io, breakdown);
  }
}

/** `vetted apply <job>`: applies an analyze job's plan (or simulates it with `--dry-run`). */
async function apply(ctx: CommandContext, jobId: string, options: ApplyOptions): Promise<ExitCode> {
  const buckets = bucketsOf(options.only);
  const rowIds = rowIdsOf(options.rows);
  const dryRun = options.dryRun === true;
  return ctx.withBackend(async (backend) => {
    const request = {
      job_id: jobId,
      ...(buckets === undefined ? {} : { buckets }),
      ...(rowIds === undefined ? {} : { row_ids: rowIds }),
    };
    const confirmed = dryRun ? { planHash: null } : await confirmPlan(ctx, backend, request, options);
    if (confirmed === undefined) {
      say(ctx.io, "Nothing was moved.");
      return EXIT.findings;
    }
    const queued = await backend.apply({
      ...request,
      ...(dryRun ? { dry_run: true } : {}),
      ...(confirmed.planHash === null ? {} : { plan_hash: confirmed.planHash }),
    });
    const job = await runToEnd(
      ctx,
      backend,
      queued,
      dryRun ? "Simulating" : "Applying",
      options.json === true,
    );
    if (options.json === true) say(ctx.io, JSON.stringify(job, null, 2));
    else report(ctx, job, dryRun);
    const failed = resultNumber(job, dryRun ? "would_fail" : "failed");
    return failed > 0 ? EXIT.findings : EXIT.ok;
  });
}

/** Registers `apply`. */
export function registerApply(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("apply")
    .description(
      "Apply an analyze job's plan: move its auto_safe rows and the rows a person edited (journaled, undoable); needs_review rows only when named",
    )
    .argument("<job>", "the analyze job")
    .option("--dry-run", "only predict what would move, what stays and why, and what would fail")
    .option("--only <bucket...>", `move the rows of these buckets (${APPLY_BUCKETS.join(", ")})`)
    .option("--rows <ids>", "move these rows (comma-separated row ids)")
    .option("-y, --yes", "do not ask before moving when files stay unreviewed or in conflict")
    .option("--json", "print the apply job as JSON")
    .action(async (jobId: string, options: ApplyOptions) => done(await apply(ctx, jobId, options)));
}
