import type { BrowserHost, RunsEngine } from "@vetted/runs";
import { createProofEngine, type ProofEngine } from "@vetted/runs/proof";
import type { Config } from "./config.js";
import type { OpenDatabase } from "./db.js";

/**
 * The server's proof and review engine: over the run engine's database and failure search, judging
 * feasibility by the same protected providers and outbound policy as runs, with the review model of
 * `VETTED_REVIEW_MODEL_*` when configured.
 */
export function createServerProof(
  config: Pick<Config, "protectedProviderDomains" | "httpAllow" | "httpDeny" | "reviewModel">,
  database: OpenDatabase,
  runs: RunsEngine,
  browser: BrowserHost,
): ProofEngine {
  return createProofEngine({
    db: database.db,
    similarFailures: (runId, limit) => runs.similarFailures(runId, limit),
    protectedDomains: config.protectedProviderDomains,
    outbound: { allow: config.httpAllow, deny: config.httpDeny },
    browserAvailable: () => browser.available,
    reviewModel: config.reviewModel,
  });
}
