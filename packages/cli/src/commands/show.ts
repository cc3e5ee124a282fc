import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode } from "../exit.js";
import { say } from "../io.js";
import { loadPlan } from "../plan.js";
import { renderPlan } from "../render/plan-text.js";
import { formatBytes } from "../render/style.js";

interface ShowOptions {
  json?: boolean;
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? "—" : entries.map(([k, v]) => `${k} ${v}`).join(", ");
}

/** `vetted show <job>`: a job's report (and, for an analyze job, its plan). */
async function show(ctx: CommandContext, jobId: string, options: ShowOptions): Promise<ExitCode> {
  return ctx.withBackend(async (backend) => {
    const job = await backend.getJob(jobId);
    const report = await backend.report(jobId);
    if (options.json === true) {
      say(ctx.io, JSON.stringify({ job, report }, null, 2));
      return EXIT.ok;
    }
    const lines = [
      ctx.c.bold(`${job.kind} job ${job.job_id}: ${job.status}`) +
        (job.error === null ? "" : ` — ${job.error.code}: ${job.error.message}`),
      `  created ${job.created_at}${job.finished_at === null ? "" : `, finished ${job.finished_at}`}, by ${job.actor}`,
      `  rows ${report.totals.rows} (${formatBytes(report.totals.bytes)}), moved ${formatBytes(report.bytes_moved)}`,
      `  buckets: ${counts(report.by_bucket)}`,
      `  statuses: ${counts(report.by_status)}`,
      `  categories: ${counts(report.by_category)}`,
      `  errors: ${counts(report.by_error_code)}`,
      `  duplicates: ${report.duplicates.groups} groups, ${report.duplicates.rows} rows; conflicts: ${report.conflicts.open} open, ${report.conflicts.resolved} resolved`,
    ];
    say(ctx.io, lines.join("\n"));
    if (job.kind === "analyze" && job.status === "succeeded") {
      say(ctx.io);
      say(ctx.io, renderPlan(await loadPlan(backend, jobId), ctx.c, ctx.command));
    }
    return EXIT.ok;
  });
}

/** Registers `show`. */
export function registerShow(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("show")
    .description("Print a job's report; for an analyze job also its plan")
    .argument("<job>", "the job")
    .option("--json", "print {job, report} as JSON")
    .action(async (jobId: string, options: ShowOptions) => done(await show(ctx, jobId, options)));
}
