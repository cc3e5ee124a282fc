import { z } from "zod";
import { RUN_STATUSES } from "../status.js";

/*
 * The request and response shapes of proof and review (`/api/proof`): campaigns and their reports, diffs,
 * run comparisons, reviews, release briefs, similar failures and template feasibility.
 */

/** How strictly a campaign is judged. */
export const CAMPAIGN_POLICIES = ["standard", "strict"] as const;
/** A campaign policy. */
export type CampaignPolicy = (typeof CAMPAIGN_POLICIES)[number];

/** A campaign's verdict. */
export const CAMPAIGN_STATUSES = ["passed", "failed"] as const;

/** Codes of a campaign's violations (each fails a `strict` campaign). */
export const VIOLATION_CODES = [
  "RUN_NOT_FINISHED",
  "RUN_FAILED",
  "RUN_CANCELLED",
  "CRITICAL_EVIDENCE_MISSING",
  "NO_VALID_RUN",
] as const;
/** A violation code. */
export type ViolationCode = (typeof VIOLATION_CODES)[number];

/** The body of `POST /api/proof/campaigns`. */
export const CampaignInput = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    run_ids: z.array(z.string().min(1).max(200)).min(1).max(500),
    policy: z.enum(CAMPAIGN_POLICIES),
  })
  .meta({ id: "CampaignInput" });
/** The body of `POST /api/proof/campaigns`. */
export type CampaignInput = z.infer<typeof CampaignInput>;

/** Why a run or the campaign falls short. */
export const Violation = z
  .object({
    code: z.enum(VIOLATION_CODES),
    run_id: z.string().nullable(),
    step_id: z.string().nullable(),
    message: z.string(),
  })
  .meta({ id: "ProofViolation" });
/** A violation. */
export type Violation = z.infer<typeof Violation>;

/** A campaign's report: counts over its runs, computed when the campaign was created. */
export const CampaignReport = z
  .object({
    run_count: z.number().int(),
    runs_by_status: z.record(z.enum(RUN_STATUSES), z.number().int()),
    valid_runs: z.number().int().meta({ description: "Runs that ended in success" }),
    gates: z.object({
      opened: z.number().int(),
      passed: z.number().int(),
      expired: z.number().int(),
      pass_rate: z.number().nullable().meta({ description: "passed / opened; null when none opened" }),
    }),
    steps_failed_by_reason: z.record(z.string(), z.number().int()),
    evidence: z.object({
      steps: z.number().int().meta({ description: "Executed browser steps (secret-typing steps excluded)" }),
      with_before_after: z.number().int(),
      coverage: z.number().nullable().meta({ description: "with_before_after / steps; null when none" }),
      critical_missing: z.number().int(),
    }),
    median_duration_ms: z.number().nullable().meta({ description: "Of the runs that ended" }),
    status: z.enum(CAMPAIGN_STATUSES),
    violations: z.array(Violation).meta({
      description: "strict: any fails the campaign; standard: warnings (it fails only with no valid run)",
    }),
  })
  .meta({ id: "CampaignReport" });
/** A campaign's report. */
export type CampaignReport = z.infer<typeof CampaignReport>;

/** A stored campaign. */
export const Campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    policy: z.enum(CAMPAIGN_POLICIES),
    run_ids: z.array(z.string()),
    status: z.enum(CAMPAIGN_STATUSES),
    created_at: z.string(),
  })
  .meta({ id: "Campaign" });
/** A stored campaign. */
export type Campaign = z.infer<typeof Campaign>;

/** A campaign with its report. */
export const CampaignWithReport = z
  .object({ campaign: Campaign, report: CampaignReport })
  .meta({ id: "CampaignWithReport" });
/** A campaign with its report. */
export type CampaignWithReport = z.infer<typeof CampaignWithReport>;

const Delta = z.object({
  this: z.number().nullable(),
  other: z.number().nullable(),
  delta: z.number().nullable(),
});

/** `POST /api/proof/campaigns/{id}/diff`: this campaign minus the other. */
export const CampaignDiff = z
  .object({
    campaign_id: z.string(),
    other_campaign_id: z.string(),
    run_count: Delta,
    valid_runs: Delta,
    gate_pass_rate: Delta,
    evidence_coverage: Delta,
    median_duration_ms: Delta,
  })
  .meta({ id: "CampaignDiff" });
/** A campaign diff. */
export type CampaignDiff = z.infer<typeof CampaignDiff>;

/** The body of `POST /api/proof/campaigns/{id}/diff`. */
export const CampaignDiffInput = z
  .object({ other_campaign_id: z.string().min(1) })
  .meta({ id: "CampaignDiffInput" });

/** The body of `POST /api/proof/runs/compare`. */
export const RunCompareInput = z
  .object({ left_run_id: z.string().min(1), right_run_id: z.string().min(1) })
  .meta({ id: "RunCompareInput" });

const RunSide = z.object({
  run_id: z.string(),
  status: z.enum(RUN_STATUSES),
  reason: z.string().nullable(),
  gates: z.object({ opened: z.number().int(), passed: z.number().int(), expired: z.number().int() }),
  gate_outcome: z.enum(["none", "passed", "expired", "rejected", "open"]),
  duration_ms: z.number().nullable(),
});

/** `POST /api/proof/runs/compare`. */
export const RunComparison = z
  .object({
    left: RunSide,
    right: RunSide,
    steps: z.array(
      z.object({
        step_id: z.string(),
        left_ms: z.number().nullable(),
        right_ms: z.number().nullable(),
        delta_ms: z.number().nullable().meta({ description: "right - left" }),
      }),
    ),
    checks: z.object({
      added: z.array(z.string()),
      removed: z.array(z.string()),
      failing_on_both: z.array(z.string()),
      newly_failing: z.array(z.string()).meta({
        description: "Checks that failed in the right run and not in the left (added checks included)",
      }),
      newly_fixed: z.array(z.string()).meta({
        description: "Checks that failed in the left run and ran without failing in the right",
      }),
    }),
    summary: z.string(),
  })
  .meta({ id: "RunComparison" });
/** A comparison of two runs. */
export type RunComparison = z.infer<typeof RunComparison>;

/** How much a finding matters. */
export const SEVERITIES = ["high", "medium", "low", "info"] as const;
/** A severity. */
export type Severity = (typeof SEVERITIES)[number];

/** Kinds of finding of a review. */
export const FINDING_KINDS = [
  "failed_assertion",
  "failed_step",
  "slow_step",
  "gate_expired",
  "retry",
  "protected_provider_pause",
] as const;

/** One deterministic finding. */
export const Finding = z
  .object({
    kind: z.enum(FINDING_KINDS),
    severity: z.enum(SEVERITIES),
    step_id: z.string().nullable(),
    message: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "ReviewFinding" });
/** One finding. */
export type Finding = z.infer<typeof Finding>;

/** The model's narrative, or why there is none. */
export const Narrative = z
  .discriminatedUnion("status", [
    z.object({
      status: z.literal("generated"),
      label: z.string(),
      model: z.string(),
      text: z.string(),
    }),
    z.object({
      status: z.literal("unavailable"),
      code: z.enum(["UPSTREAM_FAILED", "UPSTREAM_TIMEOUT"]),
      message: z.string(),
      upstream_status: z.number().int().nullable(),
    }),
  ])
  .meta({ id: "ReviewNarrative" });
/** A narrative. */
export type Narrative = z.infer<typeof Narrative>;

/** `GET /api/proof/runs/{id}/review`. */
export const RunReview = z
  .object({
    run_id: z.string(),
    status: z.enum(RUN_STATUSES),
    findings: z.array(Finding),
    narrative: Narrative.nullable().meta({ description: "null: no review model configured" }),
  })
  .meta({ id: "RunReview" });
/** A run's review. */
export type RunReview = z.infer<typeof RunReview>;

/** What a release brief recommends. */
export const RECOMMENDATIONS = ["blocked", "investigate", "review-ready", "insufficient-evidence"] as const;

/** `GET /api/proof/runs/{id}/release-brief`. */
export const ReleaseBrief = z
  .object({
    run_id: z.string(),
    baseline_run_id: z.string().nullable(),
    recommendation: z.enum(RECOMMENDATIONS),
    reasons: z.array(z.string()),
    observed: z.object({
      status: z.enum(RUN_STATUSES),
      reason: z.string().nullable(),
      duration_ms: z.number().nullable(),
      steps_finished: z.number().int(),
      steps_failed: z.number().int(),
      gates: z.object({ opened: z.number().int(), passed: z.number().int(), expired: z.number().int() }),
      findings_by_severity: z.record(z.enum(SEVERITIES), z.number().int()),
    }),
    evidence_snapshot: z.object({
      steps: z.number().int(),
      with_before_after: z.number().int(),
      critical_missing: z.array(z.string()),
      screenshots: z.number().int(),
    }),
    open_questions: z.array(z.string()),
    next_step: z.string(),
  })
  .meta({ id: "ReleaseBrief" });
/** A release brief. */
export type ReleaseBrief = z.infer<typeof ReleaseBrief>;

/** One similar failure, with why it matched. */
export const SimilarFailureMatch = z
  .object({
    run_id: z.string(),
    similarity: z.number(),
    reason_codes: z.array(z.string()),
    shared_reason_codes: z.array(z.string()),
    failure_text: z.string(),
    why_matched: z.string(),
  })
  .meta({ id: "SimilarFailureMatch" });
/** One similar failure. */
export type SimilarFailureMatch = z.infer<typeof SimilarFailureMatch>;

/** Capabilities a template needs. */
export const CAPABILITIES = [
  "browser",
  "outbound_http",
  "otp_source",
  "approval",
  "human_input",
  "protected_provider_approval",
] as const;
/** A capability. */
export type Capability = (typeof CAPABILITIES)[number];

/** Why a template cannot run against a target. */
export const BLOCKED_CODES = [
  "BROWSER_UNAVAILABLE",
  "TARGET_DENIED",
  "TARGET_UNRESOLVED",
  "STEP_HOST_DENIED",
] as const;

/** `GET /api/proof/templates/{id}/feasibility`. */
export const Feasibility = z
  .object({
    template_id: z.string(),
    target: z.string(),
    supported: z.boolean(),
    blocked_reasons: z.array(z.object({ code: z.enum(BLOCKED_CODES), message: z.string() })),
    required_capabilities: z.array(z.enum(CAPABILITIES)),
    migration_hints: z.array(z.string()),
  })
  .meta({ id: "Feasibility" });
/** A feasibility answer. */
export type Feasibility = z.infer<typeof Feasibility>;
