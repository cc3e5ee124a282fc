import type { InboxFile } from "../../domain/inbox-batch.js";
import type { Actor, Job } from "../../domain/job.js";
import type { ManifestPage } from "../../domain/manifest.js";
import type {
  BatchTriageRequest,
  BatchTriageResult,
  ReviewQueuePage,
  ReviewQueueQuery,
  RuleRequest,
} from "../../domain/review-api.js";
import { exportRulesFile, type RulesFileExport } from "../../domain/rules-file-export.js";
import type { Stored } from "../preferences/index.js";
import { storedRules } from "./analyze-rules.js";
import { analyzeInboxFiles } from "./hooks.js";
import { clearLearned, type LearnedPageQuery, listLearned } from "./learning.js";
import { queuePage, summaryOf } from "./queue.js";
import { createReviewShared, type ReviewEngineOptions, type ReviewResources } from "./resources.js";
import type { RevisionOptions } from "./revision-guard.js";
import { applyRule, draftFromExamples, previewRule } from "./rules.js";
import { runRulesFile, simulateRulesFile } from "./rules-file.js";
import { type ManifestViewQuery, manifestPage, viewQueuePage } from "./saved-views.js";
import { batchTriage } from "./triage.js";

export type { ReviewEngineOptions } from "./resources.js";

/**
 * Review of an analyze job's manifest: the prioritized queue with its summary, batch triage, review rules
 * (preview, apply, draft from examples), and learning from a person's edits (suggestions on new rows, never
 * applied silently). Every change goes through the core's atomic, audited patch batch; nothing touches disk.
 * Its hooks on the core (analyze parameters, rules and row adjustment, the edit listener: `reviewHooks`) are
 * given to the core at its construction — `createFileorg` composes both. One module per concern (`queue`, `triage`, `rules`, `learning`, `hooks`) over one shared
 * resources object.
 */
export function createReviewEngine(options: ReviewEngineOptions) {
  return reviewVerbs({ ...createReviewShared(options), fileorg: options.fileorg });
}

/** Review's verbs over its resources (the composition's: the same state its hooks work over). */
export function reviewVerbs(res: ReviewResources) {
  return {
    /**
     * One page of the review queue, highest priority first: rows needing attention (blocked, conflict,
     * needs_review; pending or failed), or every row of one bucket. A bad cursor is CURSOR_INVALID.
     */
    queue: (jobId: string, query: ReviewQueueQuery = {}): Promise<ReviewQueuePage> =>
      query.view === undefined
        ? queuePage(res, jobId, query)
        : viewQueuePage(res, jobId, { ...query, view: query.view }),
    /**
     * A page of a manifest, through a saved view when `query.view` names one (its filter — explicit query
     * fields win — and its sort). VIEW_NOT_FOUND for an unknown view; a bad cursor is CURSOR_INVALID.
     */
    manifestPage: (jobId: string, query: ManifestViewQuery = {}): Promise<ManifestPage> =>
      manifestPage(res, jobId, query),
    /** Counts per bucket and the top reasons of a job (cached per manifest revision). */
    summary: (jobId: string) => summaryOf(res, jobId),
    /** One action over many rows (`row_ids`, or every row matching `filter`), in one atomic patch batch. */
    batchTriage: (
      jobId: string,
      request: BatchTriageRequest,
      actor: Actor,
      options: RevisionOptions = {},
    ): Promise<BatchTriageResult> => batchTriage(res, jobId, request, actor, options),
    /** The rows a rule (saved, by id, or inline) matches and the exact change per row; saves nothing. */
    previewRule: (jobId: string, request: RuleRequest) => previewRule(res, jobId, request),
    /** Applies a rule to the manifest as one atomic, audited revision; answers what changed. */
    applyRule: (jobId: string, request: RuleRequest, actor: Actor, options: RevisionOptions = {}) =>
      applyRule(res, jobId, request, actor, options),
    /**
     * What the rules of a rules file (YAML text) would change in a job's manifest, rule by rule; writes
     * nothing. A bad file is RULES_FILE_SYNTAX / RULES_FILE_INVALID with every issue in `details.issues`.
     */
    simulateRulesFile: (jobId: string, text: string) => simulateRulesFile(res, jobId, text),
    /**
     * Applies the rules of a rules file to a job's manifest as one atomic, audited revision, through the
     * same path as `applyRule`; nothing moves until the plan is applied.
     */
    runRulesFile: (jobId: string, text: string, actor: Actor, options: RevisionOptions = {}) =>
      runRulesFile(res, jobId, text, actor, options),
    /**
     * The saved review rules (enabled or not) as a rules file, in the order they apply; rules a file cannot
     * express are left out and named.
     */
    exportRulesFile: async (): Promise<RulesFileExport> => exportRulesFile(await storedRules(res)),
    /** Drafts a rule from two or more example rows of a job; the draft is not saved. */
    draftFromExamples: (jobId: string, rowIds: readonly string[]) => draftFromExamples(res, jobId, rowIds),
    /** Learned signal → outcome pairs, strongest first, one page at a time. */
    listLearned: (query: LearnedPageQuery = {}) => listLearned(res, query),
    /** Clears learned pairs: all, or one by id (LEARNED_RULE_NOT_FOUND when unknown). */
    clearLearned: (id?: string) => clearLearned(res, id),
    /** Starts an analyze job over exactly an inbox batch, with the watch source's strategy pack. */
    analyzeInboxFiles: (
      source: Stored<"watch-sources">,
      files: readonly InboxFile[],
      actor: Actor = { actor: "local" },
    ): Promise<Job> => analyzeInboxFiles(res, source, files, actor),
  };
}

/** The review engine's verbs. */
export type ReviewEngine = ReturnType<typeof reviewVerbs>;
