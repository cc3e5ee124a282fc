import type {
  AnalyzeRequest,
  ApplyPlan,
  ApplyPlanRequest,
  ApplyRequest,
  BatchTriageRequest,
  BatchTriageResult,
  ConflictList,
  DraftRuleResult,
  InboxBatch,
  Job,
  JobEventList,
  JobList,
  JobReport,
  ManifestPage,
  ManifestView,
  ResolveRequest,
  ReviewQueuePage,
  ReviewRuleInput,
  RollbackRequest,
  RuleOutcome,
  RulesFileOutcome,
  StrategyPackView,
  WatchSourceItem,
} from "@vetted/fileorg";
import type { z } from "zod";

/** A draft rule inferred from example rows, what else it matches, and warnings. */
export type DraftRule = z.infer<typeof DraftRuleResult>;

/** A page query: an opaque cursor and a limit. */
export interface PageQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** A saved item as answered: the input plus `id`, `version` and `updated_at`. */
export type Saved<T> = T & { id: string; version: number; updated_at: string };

/**
 * Everything the commands need, written once: {@link createLocalBackend} runs the engines over the
 * embedded database, {@link createHttpBackend} calls a server's API. Both throw {@link BackendError}.
 */
export interface Backend {
  /** `local` (embedded database) or `server` (the URL). */
  readonly where: string;
  analyze(request: AnalyzeRequest): Promise<Job>;
  apply(request: ApplyRequest): Promise<Job>;
  /** What an apply would move and leave, by bucket and why, and the plan hash to apply exactly that. */
  planApply(request: ApplyPlanRequest): Promise<ApplyPlan>;
  rollback(request: RollbackRequest): Promise<Job>;
  getJob(jobId: string): Promise<Job>;
  listJobs(query: PageQuery): Promise<JobList>;
  listEvents(jobId: string, after: number): Promise<JobEventList>;
  listRows(jobId: string, query: PageQuery & { bucket?: string | undefined }): Promise<ManifestPage>;
  listConflicts(jobId: string, query: PageQuery & { status?: "open" | "resolved" }): Promise<ConflictList>;
  resolveConflicts(jobId: string, request: ResolveRequest): Promise<unknown>;
  viewManifest(jobId: string): Promise<ManifestView>;
  report(jobId: string): Promise<JobReport>;
  reviewQueue(jobId: string, query: PageQuery & { bucket?: string | undefined }): Promise<ReviewQueuePage>;
  batchTriage(jobId: string, request: BatchTriageRequest): Promise<BatchTriageResult>;
  draftRule(jobId: string, rowIds: string[]): Promise<DraftRule>;
  previewRule(jobId: string, rule: ReviewRuleInput): Promise<RuleOutcome>;
  saveRule(rule: ReviewRuleInput): Promise<Saved<ReviewRuleInput>>;
  /** What the rules of a rules file (YAML text) would change in a job's plan; writes nothing. */
  simulateRulesFile(jobId: string, text: string): Promise<RulesFileOutcome>;
  /** Applies the rules of a rules file to a job's plan as one revision; nothing moves. */
  runRulesFile(jobId: string, text: string): Promise<RulesFileOutcome>;
  listStrategyPacks(): Promise<StrategyPackView[]>;
  listWatchSources(): Promise<Array<Saved<WatchSourceItem>>>;
  saveWatchSource(item: WatchSourceItem): Promise<Saved<WatchSourceItem>>;
  scanInbox(): Promise<InboxBatch[]>;
  analyzeInbox(watchSourceId: string, batchId: string): Promise<Job>;
  /** Begins watching the folders of enabled watch sources (a server already does). */
  startWatching(): Promise<void>;
  /** Stops the engines (standalone) and closes the database; idempotent. */
  close(): Promise<void>;
}

/** An error the engine or the server answered, with its stable code. */
export class BackendError extends Error {
  override readonly name = "BackendError";
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}
