import { resolve } from "node:path";
import type { WatchSourceItem } from "@vetted/fileorg";
import type { Command } from "commander";
import type { Backend, Saved } from "../backend/backend.js";
import type { CommandContext } from "../context.js";
import { messageOf } from "../context.js";
import { EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";
import { loadPlan } from "../plan.js";
import { plural } from "../render/style.js";
import { resultNumber, runToEnd } from "./run-job.js";

interface WatchOptions {
  pack?: string;
  autoApply?: string;
  stability?: string;
  interval?: string;
}

function wholeNumber(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw usageError(`${flag} must be a whole number of milliseconds`);
  return n;
}

/** Saves (or re-enables) the watch source of `path`; answers it and how to put it back as it was. */
async function enableSource(backend: Backend, path: string, options: WatchOptions, stabilityMs: number) {
  const existing = (await backend.listWatchSources()).find((s) => s.path === path);
  const item: WatchSourceItem = {
    ...(existing === undefined ? { name: `vetted watch ${path}` } : { id: existing.id, name: existing.name }),
    path,
    enabled: true,
    recursive: existing?.recursive ?? true,
    stability_ms: stabilityMs,
    ...(existing?.ignore === undefined ? {} : { ignore: existing.ignore }),
    ...(options.pack === undefined
      ? existing?.strategy_pack_id === undefined
        ? {}
        : { strategy_pack_id: existing.strategy_pack_id }
      : { strategy_pack_id: options.pack }),
  };
  const source = await backend.saveWatchSource(item);
  const restore = async () => {
    const {
      id: _id,
      version: _version,
      updated_at: _at,
      ...before
    } = existing ?? { ...source, enabled: false };
    await backend.saveWatchSource({ ...before, id: source.id });
  };
  return { source, restore };
}

/** Analyzes one batch, prints its plan in a line, and applies its auto_safe rows when asked. */
async function handleBatch(
  ctx: CommandContext,
  backend: Backend,
  source: Saved<WatchSourceItem>,
  batchId: string,
  files: number,
  autoApply: boolean,
): Promise<void> {
  const queued = await backend.analyzeInbox(source.id, batchId);
  const analyzed = await runToEnd(ctx, backend, queued, "Analyzing", true);
  const plan = await loadPlan(backend, analyzed.job_id);
  const b = plan.summary.by_bucket;
  const waiting = (b.needs_review ?? 0) + (b.conflict ?? 0) + (b.blocked ?? 0);
  say(
    ctx.io,
    `${new Date().toISOString()} ${plural(files, "new file")} → ${analyzed.job_id}: ${b.auto_safe ?? 0} auto_safe, ${waiting} waiting for review (${ctx.command} review ${analyzed.job_id})`,
  );
  const safe = plan.rows.filter((r) => r.review_bucket === "auto_safe" && r.action === "move").length;
  if (!autoApply || safe === 0) return;
  const applied = await runToEnd(
    ctx,
    backend,
    await backend.apply({
      job_id: analyzed.job_id,
      plan_hash: plan.summary.plan_hash,
      buckets: ["auto_safe"],
    }),
    "Applying",
    true,
  );
  say(
    ctx.io,
    `${new Date().toISOString()} applied ${applied.job_id}: moved ${plural(resultNumber(applied, "moved"), "file")}, ${resultNumber(applied, "failed")} failed (undo: ${ctx.command} undo ${applied.job_id})`,
  );
}

/** Resolves when SIGINT or SIGTERM arrives. */
function untilSignal(): { stopped: Promise<void>; isStopped: () => boolean; dispose: () => void } {
  let stop = () => {};
  let stoppedFlag = false;
  const stopped = new Promise<void>((resolvePromise) => {
    stop = () => {
      stoppedFlag = true;
      resolvePromise();
    };
  });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return {
    stopped,
    isStopped: () => stoppedFlag,
    dispose: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}

/** `vetted watch <dir>`: runs the inbox watcher in the foreground until SIGINT. */
async function watch(ctx: CommandContext, dir: string, options: WatchOptions): Promise<ExitCode> {
  if (options.autoApply !== undefined && options.autoApply !== "auto_safe" && options.autoApply !== "off") {
    throw usageError(`--auto-apply takes auto_safe or off, not ${options.autoApply}`);
  }
  const autoApply = options.autoApply === "auto_safe";
  const stabilityMs = wholeNumber(options.stability, 5000, "--stability");
  const intervalMs = Math.max(wholeNumber(options.interval, 1000, "--interval"), 50);
  const path = resolve(ctx.io.cwd, dir);
  return ctx.withBackend(async (backend) => {
    if (options.pack !== undefined) {
      const packs = await backend.listStrategyPacks();
      if (!packs.some((p) => p.id === options.pack)) {
        throw usageError(
          `Unknown strategy pack ${options.pack}; use one of ${packs.map((p) => p.id).join(", ")}`,
        );
      }
    }
    const signal = untilSignal();
    const { source, restore } = await enableSource(backend, path, options, stabilityMs);
    try {
      await backend.startWatching();
      say(
        ctx.io,
        `Watching ${path} (${autoApply ? "auto_safe rows applied at once" : "nothing applied"}); Ctrl-C stops.`,
      );
      while (!signal.isStopped()) {
        const batch = (await backend.scanInbox()).find((b) => b.watch_source_id === source.id);
        if (batch?.error !== undefined)
          ctx.io.stderr.write(`vetted: ${batch.error.code}: ${batch.error.message}\n`);
        else if (batch?.batch_id && batch.files.length > 0) {
          try {
            await handleBatch(ctx, backend, source, batch.batch_id, batch.files.length, autoApply);
            continue;
          } catch (err) {
            ctx.io.stderr.write(`vetted: ${messageOf(err)}\n`);
          }
        }
        await Promise.race([signal.stopped, new Promise((r) => setTimeout(r, intervalMs))]);
      }
      say(ctx.io, "Stopped watching.");
      return EXIT.ok;
    } finally {
      signal.dispose();
      await restore();
    }
  });
}

/** Registers `watch`. */
export function registerWatch(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("watch")
    .description("Watch a folder in the foreground: analyze each stable batch of new files (until Ctrl-C)")
    .argument("<dir>", "the folder to watch")
    .option("--pack <id>", "the strategy pack of the batches")
    .option("--auto-apply <mode>", "auto_safe: apply each batch's auto_safe rows at once (default: off)")
    .option("--stability <ms>", "how long a file must hold still before it counts (default 5000)")
    .option("--interval <ms>", "how often to look for a batch (default 1000)")
    .action(async (dir: string, options: WatchOptions) => done(await watch(ctx, dir, options)));
}
