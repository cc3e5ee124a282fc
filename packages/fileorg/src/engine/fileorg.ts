import type { Job } from "../domain/job.js";
import type { LearningOptions } from "../domain/learned-signals.js";
import { createFileorgEngine, type FileorgEngine } from "./engine.js";
import { autoApplySafeRows } from "./inbox/autopilot.js";
import { createInboxEngine, type InboxEngine } from "./inbox/index.js";
import type { InboxEngineOptions } from "./inbox/resources.js";
import { createPreferencesEngine, type PreferencesEngine } from "./preferences/index.js";
import { createEngineGuard, type FileorgEngineOptions } from "./resources.js";
import { reviewHooks } from "./review/hooks.js";
import { type ReviewEngine, reviewVerbs } from "./review/index.js";
import { createReviewShared } from "./review/resources.js";

/** What the inbox of {@link createFileorg} may be given; the rest is the composition's. */
export type FileorgInboxOptions = Pick<
  InboxEngineOptions<Job>,
  "usePolling" | "pollIntervalMs" | "refreshIntervalMs" | "watch" | "raceHooks" | "onWarning"
> & {
  /**
   * Whether sources with `auto_apply: "auto_safe"` get their safe rows applied after each analyze
   * (`autoApplySafeRows` over the core; default false: the autopilot only analyzes).
   */
  autoApplySafe?: boolean | undefined;
};

/** What {@link createFileorg} is built from: the core's options, review's learning, the inbox's options. */
export interface FileorgOptions extends Omit<FileorgEngineOptions, "hooks"> {
  /** How review learns from a person's edits (default `DEFAULT_LEARNING`). */
  learning?: LearningOptions | undefined;
  inbox?: FileorgInboxOptions | undefined;
}

/** The file organizer, composed once: the core, the preferences, review and the inbox over one database. */
export interface Fileorg {
  /** The core: analyze, apply, rollback, jobs, manifests. */
  fileorg: FileorgEngine;
  preferences: PreferencesEngine;
  review: ReviewEngine;
  inbox: InboxEngine<Job>;
}

/**
 * Composes fileorg's engines once over `options.db`: the path guard (allowed roots and never-touch set)
 * first, the preferences over it, review's state, then the core with review's hooks (analyze rules,
 * parameters and learned row adjusters, the edit listener) given at its construction, review's verbs over
 * the core, and the inbox, which analyzes through review and — when asked — applies the safe rows. Files
 * of an inbox batch whose analyze job did not succeed are offered again by the next scan. Nothing is
 * started: call `fileorg.start()` (and `inbox.start()` to watch).
 */
export function createFileorg(options: FileorgOptions): Fileorg {
  const { learning, inbox: inboxOptions = {}, ...coreOptions } = options;
  const { db } = coreOptions;
  // Stored paths (watch folders, output roots) are confined to the core's allowed roots: one guard for both.
  const guard = createEngineGuard(coreOptions);
  const preferences = createPreferencesEngine({ db, guard });
  const shared = createReviewShared({
    db,
    preferences,
    ...(coreOptions.clock === undefined ? {} : { clock: coreOptions.clock }),
    ...(learning === undefined ? {} : { learning }),
  });
  const fileorg = createFileorgEngine({ ...coreOptions, hooks: reviewHooks(shared) }, guard);
  const review = reviewVerbs({ ...shared, fileorg });
  const { autoApplySafe = false, onWarning, ...watching } = inboxOptions;
  const inbox = createInboxEngine<Job>({
    ...watching,
    db,
    preferences,
    guard,
    analyzeFiles: (source, files, actor) => review.analyzeInboxFiles(source, files, actor),
    ...(autoApplySafe ? { autoApply: autoApplySafeRows(fileorg) } : {}),
    ...(onWarning === undefined ? {} : { onWarning }),
  });
  fileorg.subscribe((message) => {
    const { event } = message;
    if (event.type !== "finished" || event.data.status === "succeeded") return;
    inbox.forgetJob(event.job_id).catch((err: unknown) =>
      onWarning?.("inbox could not forget a failed job's batch", {
        job_id: event.job_id,
        error: String(err),
      }),
    );
  });
  return { fileorg, preferences, review, inbox };
}
