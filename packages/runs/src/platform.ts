import { createResources, type RunsCoreOptions } from "./core/resources.js";
import { createRunsCore } from "./core/runs-engine.js";
import type { Embedder } from "./lanes/embeddings/embedder.js";
import { createFailureEmbeddings } from "./lanes/embeddings/failure-embeddings.js";
import { createInboundSms } from "./lanes/inbound-sms/inbound-sms.js";
import { queueRunWebhook } from "./lanes/webhooks/outbox.js";

/** What {@link createRunsEngine} is built from: the run core's options and those of the lanes it carries. */
export interface RunsEngineOptions extends RunsCoreOptions {
  /** Embeds the failure texts of failed or blocked runs for `similarFailures`; none = nothing is embedded. */
  embedder?: Embedder | undefined;
  /**
   * Whether `similarFailures` searches through libSQL's vector index when the database has one (default
   * true); false: always the brute-force scan of an in-memory copy of the stored vectors.
   */
  vectorIndex?: boolean;
}

/**
 * Creates the run engine: the run core (flows, templates and durable runs over one database) composed with
 * the lanes that live in its transactions and its worker — the webhooks outbox, written in each run
 * transition's transaction; inbound SMS, matched to waiting runs; failure embeddings, embedded in the
 * background. Here and not in `core/`, so the core imports no lane.
 */
export function createRunsEngine(options: RunsEngineOptions) {
  const r = createResources(options, [queueRunWebhook]);
  const sms = createInboundSms(r, options.secretsKey);
  const failures = createFailureEmbeddings(r, options.embedder, options.vectorIndex);
  return {
    ...createRunsCore(r, [sms.matchWaiting, failures.embedInBackground]),
    /** Stores an inbound SMS once and resumes the oldest matching `waiting_otp` run with its code. */
    receiveSms: sms.receiveSms,
    /** Audits a provider callback the integration refused. */
    recordInboundRejection: sms.recordRejected,
    /** The audit of provider callbacks, newest first. */
    listInboundCallbacks: sms.listCallbacks,
    /** Failed or blocked runs whose failure reads most like this run's, by cosine similarity. */
    similarFailures: failures.similarFailures,
    /** Embeds and stores the failure text of failed or blocked runs not embedded yet; how many. */
    embedFailures: failures.embedPending,
  };
}

/** The run engine. */
export type RunsEngine = ReturnType<typeof createRunsEngine>;
