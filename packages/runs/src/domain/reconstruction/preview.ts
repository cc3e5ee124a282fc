import { toHttpSpec, toPlaywrightSpec } from "./generators.js";
import { planHttpFlow } from "./http-plan.js";
import { type PlanContext, type ReconstructionInputs, UNRESOLVED_BELOW } from "./inputs.js";
import type { FlowPlan } from "./plan.js";
import { type Profile, resolveProfile } from "./profile.js";
import { planBrowserFlow } from "./ui-plan.js";

/** Which planner a preview uses: chosen from the profile (`auto`), or forced. */
export const PREVIEW_MODES = ["auto", "http", "browser"] as const;
/** A preview mode. */
export type PreviewMode = (typeof PREVIEW_MODES)[number];

/** A reconstruction preview, before it is stored (no id, no times). */
export interface PreviewBody {
  profile: Profile;
  plan: FlowPlan;
  reconstructed_flow_quality: { score: number; level: "high" | "medium" | "low"; step_count: number };
  step_confidence: Array<{ step_id: string; confidence: number }>;
  unresolved_segments: Array<{ step_id: string; confidence: number; reasons: string[] }>;
  manual_handoff_required: boolean;
  generator_outputs: { playwright_spec: string; http_spec: string };
}

function choosePlan(
  inputs: ReconstructionInputs,
  ctx: PlanContext,
  profile: Profile,
  mode: PreviewMode,
): FlowPlan {
  const hasHar = (inputs.har ?? []).length > 0;
  const hasUi = (inputs.events ?? []).length > 0 || inputs.html !== undefined;
  if (mode === "http" || (mode === "auto" && hasHar && (profile.profile === "api-centric" || !hasUi))) {
    return planHttpFlow(inputs, ctx);
  }
  return planBrowserFlow(inputs, ctx);
}

/**
 * Builds a preview: the profile, then `http` steps from the HAR (api-centric) or browser steps from the
 * recording or HTML (ui-centric), each step's confidence, the steps below {@link UNRESOLVED_BELOW}, and the
 * generated Playwright script and `.http` file.
 */
export function buildPreview(inputs: ReconstructionInputs, ctx: PlanContext, mode: PreviewMode): PreviewBody {
  const profile = resolveProfile(inputs, ctx);
  const plan = choosePlan(inputs, ctx, profile, mode);
  const scores = plan.confidence.map((c) => c.confidence);
  const score =
    scores.length === 0 ? 0 : Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 1000) / 1000;
  const unresolved = plan.confidence.filter((c) => c.confidence < UNRESOLVED_BELOW);
  return {
    profile,
    plan,
    reconstructed_flow_quality: {
      score,
      level: score >= 0.85 && unresolved.length === 0 ? "high" : score >= UNRESOLVED_BELOW ? "medium" : "low",
      step_count: plan.steps.length,
    },
    step_confidence: plan.confidence.map(({ step_id, confidence }) => ({ step_id, confidence })),
    unresolved_segments: unresolved,
    manual_handoff_required: profile.manual_handoff_required,
    generator_outputs: { playwright_spec: toPlaywrightSpec(plan), http_spec: toHttpSpec(plan) },
  };
}
