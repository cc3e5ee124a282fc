// The proof lane: campaigns of runs, their facts, reports and reviews, and the similar failures they cite.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export { releaseBrief } from "../../domain/proof/brief.js";
export { compareRuns } from "../../domain/proof/compare.js";
export type { FactEvent, FactEvidence, RunFacts } from "../../domain/proof/facts.js";
export { assessFeasibility } from "../../domain/proof/feasibility.js";
export { buildReport, diffReports } from "../../domain/proof/report.js";
export { reviewFindings } from "../../domain/proof/review.js";
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
} from "../../domain/proof/schemas.js";
export {
  createProofEngine,
  type ProofEngine,
  type ProofEngineOptions,
  type ReviewModelOptions,
} from "./proof-engine.js";
export { GENERATED_LABEL } from "./review-model.js";
