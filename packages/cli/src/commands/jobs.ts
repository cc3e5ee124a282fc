import Table from "cli-table3";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";

interface JobsOptions {
  limit?: string;
  json?: boolean;
}

function statusColor(ctx: CommandContext, status: string): string {
  if (status === "succeeded") return ctx.c.green(status);
  if (status === "failed") return ctx.c.red(status);
  return ctx.c.yellow(status);
}

/** `vetted jobs`: the newest jobs. */
async function jobs(ctx: CommandContext, options: JobsOptions): Promise<ExitCode> {
  const limit = Number(options.limit ?? "20");
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw usageError("--limit must be a whole number from 1 to 500");
  return ctx.withBackend(async (backend) => {
    const page = await backend.listJobs({ limit });
    if (options.json === true) {
      say(ctx.io, JSON.stringify(page, null, 2));
      return EXIT.ok;
    }
    if (page.items.length === 0) {
      say(ctx.io, `No jobs yet: start with ${ctx.command} organize <dir>`);
      return EXIT.ok;
    }
    const table = new Table({
      head: ["job", "kind", "status", "created", "about"],
      style: { head: ctx.c.isColorSupported ? ["cyan"] : [], border: ctx.c.isColorSupported ? ["grey"] : [] },
    });
    for (const job of page.items) {
      const about =
        job.kind === "analyze"
          ? String(job.params.source_dir ?? "")
          : `of ${job.target_job_id ?? job.manifest_job_id}`;
      table.push([job.job_id, job.kind, statusColor(ctx, job.status), job.created_at, about]);
    }
    say(ctx.io, table.toString());
    return EXIT.ok;
  });
}

/** Registers `jobs`. */
export function registerJobs(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("jobs")
    .description("List the newest jobs (analyze, apply, rollback)")
    .option("--limit <n>", "how many (1-500, default 20)")
    .option("--json", "print the page of jobs as JSON")
    .action(async (options: JobsOptions) => done(await jobs(ctx, options)));
}
