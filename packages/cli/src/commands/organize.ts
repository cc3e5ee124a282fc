import { resolve } from "node:path";
import { ruleNeedsText } from "@vetted/fileorg";
import type { Command } from "commander";
import type { Backend } from "../backend/backend.js";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";
import { loadPlan, type PlanJson } from "../plan.js";
import { renderPlan } from "../render/plan-text.js";
import { formatBytes, plural } from "../render/style.js";
import { confirmOrRefuse } from "./confirm.js";
import { checkedRules, renderRulesApplied } from "./rules.js";
import { resultNumber, runToEnd } from "./run-job.js";

interface OrganizeOptions {
  out?: string;
  pack?: string;
  template?: string;
  apply?: boolean;
  yes?: boolean;
  json?: boolean;
  hidden?: boolean;
  rules?: string;
}

/** The naming template of `--template`, else of `--pack` (refused when the pack is unknown). */
async function templateOf(backend: Backend, options: OrganizeOptions): Promise<string | undefined> {
  if (options.template !== undefined) return options.template;
  if (options.pack === undefined) return undefined;
  const packs = await backend.listStrategyPacks();
  const pack = packs.find((p) => p.id === options.pack);
  if (pack === undefined) {
    throw usageError(
      `Unknown strategy pack ${options.pack}; use one of ${packs.map((p) => p.id).join(", ")}`,
    );
  }
  return pack.naming_template;
}

/** Applies the plan's `auto_safe` rows (after a confirmation unless `--yes`); answers the apply job id. */
async function applySafeRows(
  ctx: CommandContext,
  backend: Backend,
  plan: PlanJson,
  options: OrganizeOptions,
): Promise<{ jobId: string | undefined; code: ExitCode }> {
  const safe = plan.rows.filter(
    (r) => r.review_bucket === "auto_safe" && (r.action === "move" || r.action === "copy"),
  ).length;
  const out = (line: string) => (options.json ? ctx.io.stderr.write(`${line}\n`) : say(ctx.io, line));
  if (safe === 0) {
    out("Nothing is safe to apply without review.");
    return { jobId: undefined, code: EXIT.ok };
  }
  if (options.yes !== true) {
    const review = plan.rows.filter((r) => r.review_bucket === "needs_review").length;
    const question = `Move the ${plural(safe, "auto_safe file")} now? ${review} needing review and ${plan.summary.open_conflicts} open conflicts stay where they are`;
    if (!(await confirmOrRefuse(ctx, question))) {
      out("Nothing was moved.");
      return { jobId: undefined, code: EXIT.findings };
    }
  }
  const queued = await backend.apply({
    job_id: plan.job_id,
    plan_hash: plan.summary.plan_hash,
    buckets: ["auto_safe"],
  });
  const done = await runToEnd(ctx, backend, queued, "Applying", options.json === true);
  const failed = resultNumber(done, "failed");
  out(
    `${ctx.c.green("Applied")} ${done.job_id}: moved ${plural(resultNumber(done, "moved"), "file")} (${formatBytes(resultNumber(done, "bytes_moved"))})` +
      `${failed > 0 ? `, ${ctx.c.red(`${failed} failed`)}` : ""}. Undo with: ${ctx.command} undo ${done.job_id}`,
  );
  return { jobId: done.job_id, code: failed > 0 ? EXIT.findings : EXIT.ok };
}

/**
 * `vetted organize <dir>`: analyze with progress, apply the rules file of `--rules` to the plan (one audited
 * revision through the rule engine), print the plan, optionally apply its auto_safe rows. A bad rules file
 * fails (exit 1, every problem) before anything is analyzed.
 */
async function organize(ctx: CommandContext, dir: string, options: OrganizeOptions): Promise<ExitCode> {
  const checked =
    options.rules === undefined ? undefined : checkedRules(ctx, options.rules, options.json === true);
  const rulesText = checked?.text;
  // A rules file that tests `text` needs PDFs' text, which analyze reads only when asked.
  const readPdfText = checked?.rules.some((r) => ruleNeedsText(r.conditions)) === true;
  return ctx.withBackend(async (backend) => {
    const template = await templateOf(backend, options);
    const queued = await backend.analyze({
      source_dir: resolve(ctx.io.cwd, dir),
      ...(options.out === undefined ? {} : { output_dir: resolve(ctx.io.cwd, options.out) }),
      ...(template === undefined ? {} : { naming_template: template }),
      ...(options.hidden === true ? { include_hidden: true } : {}),
      ...(readPdfText ? { read_pdf_text: true } : {}),
    });
    const analyzed = await runToEnd(
      ctx,
      backend,
      queued,
      "Analyzing",
      options.json === true && !ctx.io.stderr.isTTY,
    );
    const rules =
      rulesText === undefined ? undefined : await backend.runRulesFile(analyzed.job_id, rulesText);
    const loaded = await loadPlan(backend, analyzed.job_id);
    const plan: PlanJson = rules === undefined ? loaded : { ...loaded, rules };
    if (options.json !== true) {
      say(ctx.io, renderPlan(plan, ctx.c, ctx.command));
      if (rules !== undefined && options.rules !== undefined)
        say(ctx.io, `\n${renderRulesApplied(ctx, options.rules, rules)}`);
    }
    let code: ExitCode = EXIT.ok;
    let applyJobId: string | undefined;
    if (options.apply === true) {
      if (options.json !== true) say(ctx.io);
      ({ jobId: applyJobId, code } = await applySafeRows(ctx, backend, plan, options));
    }
    if (options.json === true) {
      say(
        ctx.io,
        JSON.stringify(applyJobId === undefined ? plan : { ...plan, apply_job_id: applyJobId }, null, 2),
      );
    } else if (options.apply !== true) {
      say(
        ctx.io,
        ctx.c.dim(
          `\nNext: ${ctx.command} review ${plan.job_id} · ${ctx.command} apply ${plan.job_id} · or organize again with --apply`,
        ),
      );
    }
    return code;
  });
}

/** Registers `organize`. */
export function registerOrganize(
  program: Command,
  ctx: CommandContext,
  done: (code: ExitCode) => void,
): void {
  program
    .command("organize")
    .description("Analyze a folder and print the plan: target tree, rows needing review, conflicts, totals")
    .argument("<dir>", "the folder to organize")
    .option("--out <dir>", "where the organized tree goes (default: the folder itself)")
    .option(
      "--pack <id>",
      "a strategy pack whose naming template to use (e.g. downloads-cleanup, photos-by-date)",
    )
    .option("--template <t>", "a naming template, e.g. '{category}/{yyyy}/{name}{ext}'")
    .option("--hidden", "include hidden files and folders")
    .option(
      "--rules <file>",
      "apply a rules file (YAML, see `rules check`) to the plan right after analyzing, as one revision",
    )
    .option("--apply", "apply the auto_safe rows after a confirmation")
    .option("-y, --yes", "with --apply: do not ask")
    .option(
      "--json",
      "print the plan as JSON: {job_id, summary, tree, rows, conflicts[, rules][, apply_job_id]}",
    )
    .action(async (dir: string, options: OrganizeOptions) => done(await organize(ctx, dir, options)));
}
