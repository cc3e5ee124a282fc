// Proof and review: run facts, reports, comparisons, campaigns, review findings and similar failures.
// Re-exported by `src/index.ts`.

export { releaseBrief } from "../domain/proof/brief.js";
export { compareRuns } from "../domain/proof/compare.js";
export type { FactEvent, FactEvidence, RunFacts } from "../domain/proof/facts.js";
export { assessFeasibility } from "../domain/proof/feasibility.js";
export { buildReport, diffReports } from "../domain/proof/report.js";
export { reviewFindings } from "../domain/proof/review.js";
export {
  BLOCKED_CODES,
  CAMPAIGN_POLICIES,
  CAPABILITIES,
  Campaign,
  CampaignDiff,
  CampaignDiffInput,
  CampaignInput,
  CampaignReport,
  CampaignWithReport,
  Feasibility,
  FINDING_KINDS,
  Finding,
  Narrative,
  RECOMMENDATIONS,
  ReleaseBrief,
  RunCompareInput,
  RunComparison,
  RunReview,
  SEVERITIES,
  SimilarFailureMatch,
  VIOLATION_CODES,
} from "../domain/proof/schemas.js";
export { BLOCKING_REASONS, type SimilarFailure } from "../lanes/embeddings/index.js";
export {
  createProofEngine,
  GENERATED_LABEL,
  type ProofEngine,
  type ProofEngineOptions,
  type ReviewModelOptions,
} from "../lanes/proof/index.js";
