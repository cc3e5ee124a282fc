import { intro, log, outro } from "@clack/prompts";
import type { ReviewBucket } from "@vetted/fileorg";
import type { Command } from "commander";
import type { Backend } from "../backend/backend.js";
import type { CommandContext } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { promptOutput } from "../render/prompt-output.js";
import { plural } from "../render/style.js";
import { draftPreviewSave } from "./review-rule.js";
import {
  type PromptStreams,
  pickAction,
  pickCategory,
  pickRows,
  pickTarget,
  ReviewCancelled,
  resolveSelected,
  rowLabel,
} from "./review-steps.js";

/** The buckets walked, most urgent first (`auto_safe` needs no review). */
const REVIEW_ORDER: readonly ReviewBucket[] = ["blocked", "conflict", "needs_review"];

interface ReviewState {
  io: PromptStreams;
  backend: Backend;
  jobId: string;
  sourceDir: string;
  outputDir: string;
  /** Rows whose category or target the person changed: the examples of a rule. */
  corrected: Set<string>;
}

/** Carries out one action over the selected rows; answers a line saying what happened. */
async function act(state: ReviewState, rowIds: string[], bucket: ReviewBucket): Promise<string | undefined> {
  const { io, backend, jobId } = state;
  const action = await pickAction(io, rowIds.length, bucket === "conflict");
  if (action === "back") return undefined;
  if (action === "resolve") {
    const n = await resolveSelected(io, backend, jobId, rowIds, state.outputDir);
    return `Resolved ${plural(n, "conflict")}.`;
  }
  if (action === "approve" || action === "skip") {
    const result = await backend.batchTriage(jobId, { row_ids: rowIds, action });
    return `${action === "approve" ? "Approved" : "Skipped"} ${plural(result.applied_count, "row")}.`;
  }
  const value = action === "set_category" ? await pickCategory(io, undefined) : await pickTarget(io);
  const result = await backend.batchTriage(jobId, { row_ids: rowIds, action, value });
  for (const id of rowIds) state.corrected.add(id);
  return `${action === "set_category" ? `Category ${value}` : `Target ${value}`} set on ${plural(result.applied_count, "row")}.`;
}

/** Walks one bucket until the person moves on (an empty selection) or it is empty. */
async function walkBucket(state: ReviewState, bucket: ReviewBucket): Promise<void> {
  for (;;) {
    const page = await state.backend.reviewQueue(state.jobId, { bucket, limit: 100 });
    if (page.items.length === 0) return;
    log.step(`${bucket}: ${plural(page.summary.buckets[bucket], "row")}`, { output: state.io.output });
    const selected = await pickRows(state.io, page.items, (row) =>
      rowLabel(row, state.sourceDir, state.outputDir),
    );
    if (selected.length === 0) return;
    const done = await act(state, selected, bucket);
    if (done !== undefined) log.success(done, { output: state.io.output });
  }
}

/** `vetted review <job>`: the interactive review of an analyze job's queue. */
async function review(ctx: CommandContext, jobId: string): Promise<ExitCode> {
  if (ctx.io.stdin.isTTY !== true || ctx.io.stdout.isTTY !== true) {
    throw usageError(
      `${ctx.command} review is interactive and needs a terminal; in scripts use ${ctx.command} show --json and the server's review API`,
      "NO_TERMINAL",
    );
  }
  return ctx.withBackend(async (backend) => {
    const job = await backend.getJob(jobId);
    const view = await backend.viewManifest(jobId);
    const io: PromptStreams = { input: ctx.io.stdin, output: promptOutput(ctx.io) };
    const state: ReviewState = {
      io,
      backend,
      jobId,
      sourceDir: String(job.params.source_dir ?? ""),
      outputDir: view.output_dir,
      corrected: new Set(),
    };
    intro(`Review ${jobId}: ${state.sourceDir} → ${state.outputDir}`, { output: io.output });
    try {
      for (const bucket of REVIEW_ORDER) await walkBucket(state, bucket);
      if (state.corrected.size >= 2) await draftPreviewSave(io, backend, jobId, [...state.corrected]);
    } catch (err) {
      if (!(err instanceof ReviewCancelled)) throw err;
      outro("Review stopped; every change made so far is kept.", { output: io.output });
      return EXIT.findings;
    }
    const summary = (await backend.reviewQueue(jobId, { limit: 1 })).summary;
    const b = summary.buckets;
    outro(
      `${b.auto_safe} auto_safe, ${b.needs_review} needs_review, ${b.conflict} conflict, ${b.blocked} blocked. Next: ${ctx.command} apply ${jobId}`,
      { output: io.output },
    );
    return EXIT.ok;
  });
}

/** Registers `review`. */
export function registerReview(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("review")
    .description(
      "Review a plan interactively, bucket by bucket: approve, skip, set category or target, resolve conflicts, save a rule",
    )
    .argument("<job>", "the analyze job")
    .action(async (jobId: string) => done(await review(ctx, jobId)));
}
