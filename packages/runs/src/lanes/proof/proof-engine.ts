import type { ListQuery } from "../../core/lists.js";
import { createCampaign, diffCampaigns, getCampaign, listCampaigns } from "./campaigns.js";
import { createProofResources, type ProofEngineOptions } from "./resources.js";
import { compareRuns, feasibility, releaseBrief, reviewRun, similarFailures } from "./run-proof.js";

/**
 * Creates the proof and review engine over the run engine's database: campaigns of runs with stored
 * reports and diffs, run comparisons, deterministic reviews (with an optional generated narrative),
 * release briefs, similar failures with why they matched, and template feasibility.
 */
export function createProofEngine(options: ProofEngineOptions) {
  const p = createProofResources(options);
  return {
    /** Creates a campaign over runs and stores its report. */
    createCampaign: (input: unknown) => createCampaign(p, input),
    /** Campaigns, newest first. */
    listCampaigns: (query?: ListQuery) => listCampaigns(p, query),
    /** A campaign with its report. */
    getCampaign: (campaignId: string) => getCampaign(p, campaignId),
    /** This campaign's report minus another's. */
    diffCampaigns: (campaignId: string, input: unknown) => diffCampaigns(p, campaignId, input),
    /** Two runs side by side. */
    compareRuns: (input: unknown) => compareRuns(p, input),
    /** A run's findings (and narrative, with a review model). */
    reviewRun: (runId: string) => reviewRun(p, runId),
    /** A run's release recommendation. */
    releaseBrief: (runId: string, baselineRunId?: string) => releaseBrief(p, runId, baselineRunId),
    /** Runs failing like this one, with why they matched. */
    similarFailures: (runId: string, limit?: number) => similarFailures(p, runId, limit),
    /** Whether a template can run against a target. */
    feasibility: (templateId: string, target: string) => feasibility(p, templateId, target),
  };
}

/** The proof and review engine. */
export type ProofEngine = ReturnType<typeof createProofEngine>;
export type { ProofEngineOptions } from "./resources.js";
export type { ReviewModelOptions } from "./review-model.js";
