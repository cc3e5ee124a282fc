/*
 * What a person needs to act on a paused run, derived from the gate step and the steps around it: the step
 * the run paused after, a title for the screen, the actions it waits for, a hint on how to resume, and
 * where the evidence is. Pure: computed from the stored wait context and the run's steps on every read.
 */
import { z } from "zod";
import type { WaitContext } from "./run.js";
import type { ReasonCode, ResumeKind } from "./status.js";

/** The kinds of thing a paused run can ask of a person. */
export const REQUIRED_ACTION_KINDS = [
  "enter_otp",
  "approve",
  "enter_input",
  "check_far_side",
  "complete_challenge",
] as const;

/** One thing a paused run waits for. */
export const RequiredAction = z
  .object({ kind: z.enum(REQUIRED_ACTION_KINDS), label: z.string(), description: z.string() })
  .meta({ id: "RequiredAction" });
/** One thing a paused run waits for. */
export type RequiredAction = z.infer<typeof RequiredAction>;

/** Where to look before acting: a step's browser evidence (screenshots, URLs) or its events in the run's log. */
export const EvidenceRef = z
  .object({
    kind: z.enum(["browser_evidence", "step_events"]),
    step_id: z.string(),
    description: z.string(),
  })
  .meta({ id: "EvidenceRef" });
/** Where to look before acting. */
export type EvidenceRef = z.infer<typeof EvidenceRef>;

/** The guidance fields of a wait context. */
export interface WaitGuidance {
  after_step_id: string | null;
  resume_hint: string;
  screen_title: string;
  required_actions: RequiredAction[];
  evidence_refs: EvidenceRef[];
}

interface StepLike {
  id: string;
  type: string;
}

const BROWSER_TYPES = new Set(["navigate", "click", "type", "select", "wait_for", "extract", "screenshot"]);

function isBrowserStep(step: StepLike): boolean {
  if (BROWSER_TYPES.has(step.type)) return true;
  const fields = step as unknown as Record<string, unknown>;
  return step.type === "assert" && ["target", "text", "url", "visible"].some((k) => Object.hasOwn(fields, k));
}

const TITLES: Record<ReasonCode, string> = {
  otp_required: "One-time code needed",
  otp_rejected: "The one-time code was refused",
  approval_required: "Approval needed",
  input_required: "Input needed",
  provider_protected_payment_step: "Payment provider step",
  step_outcome_unknown: "Outcome of a request unknown",
  three_ds_challenge_detected: "3-D Secure challenge",
};

function actionFor(kind: ResumeKind, wait: WaitContext): RequiredAction {
  if (kind === "otp") {
    return {
      kind: "enter_otp",
      label: "Enter the one-time code",
      description: `Send the code for step ${wait.at_step_id} (resume kind otp).`,
    };
  }
  if (kind === "input") {
    return {
      kind: "enter_input",
      label: "Provide the requested input",
      description: `Type what step ${wait.at_step_id} asks for (resume kind input): ${wait.prompt}`,
    };
  }
  return {
    kind: "approve",
    label: "Approve or reject",
    description: `Approve to let step ${wait.at_step_id} go on, or reject to cancel the run (resume kind approval).`,
  };
}

function requiredActions(wait: WaitContext): RequiredAction[] {
  const before: RequiredAction[] = [];
  if (wait.reason_code === "step_outcome_unknown") {
    before.push({
      kind: "check_far_side",
      label: "Check whether the request took effect",
      description: `Step ${wait.at_step_id} may have been sent already; check the receiving system before approving a resend.`,
    });
  }
  if (wait.reason_code === "three_ds_challenge_detected") {
    before.push({
      kind: "complete_challenge",
      label: "Complete the 3-D Secure challenge",
      description: `Finish the bank's challenge on ${wait.provider_domain ?? "the payment page"}, then approve.`,
    });
  }
  return [...before, ...wait.allowed_resume_kinds.map((kind) => actionFor(kind, wait))];
}

function resumeHint(wait: WaitContext): string {
  const where =
    wait.resume_from_step_id === null
      ? "the run then ends successfully"
      : `the run continues at step ${wait.resume_from_step_id}`;
  const kinds = wait.allowed_resume_kinds.map((k) => `"${k}"`).join(" or ");
  return `Resume with kind ${kinds} before ${wait.expires_at}; ${where}.`;
}

function evidenceRefs(wait: WaitContext, steps: readonly StepLike[], afterId: string | null): EvidenceRef[] {
  const ids = [afterId];
  const atRan =
    wait.reason_code === "three_ds_challenge_detected" || wait.reason_code === "step_outcome_unknown";
  if (atRan || wait.reason_code === "otp_rejected") ids.push(wait.at_step_id);
  const refs: EvidenceRef[] = [];
  for (const id of ids) {
    const step = steps.find((s) => s.id === id);
    if (step === undefined) continue;
    refs.push(
      isBrowserStep(step)
        ? {
            kind: "browser_evidence",
            step_id: step.id,
            description: `Screenshots and URLs of step ${step.id}`,
          }
        : {
            kind: "step_events",
            step_id: step.id,
            description: `The events of step ${step.id} in the run's log`,
          },
    );
  }
  return refs;
}

/**
 * The guidance for a paused run: `after_step_id` (the step before the gate step, null when the gate is
 * first), `screen_title`, `required_actions`, `resume_hint` and `evidence_refs`.
 */
export function describeWait(wait: WaitContext, steps: readonly StepLike[]): WaitGuidance {
  const at = steps.findIndex((s) => s.id === wait.at_step_id);
  const afterId = at > 0 ? (steps[at - 1]?.id ?? null) : null;
  const domain = wait.provider_domain === null ? "" : ` (${wait.provider_domain})`;
  return {
    after_step_id: afterId,
    resume_hint: resumeHint(wait),
    screen_title: `${TITLES[wait.reason_code]}${domain} at step ${wait.at_step_id}`,
    required_actions: requiredActions(wait),
    evidence_refs: evidenceRefs(wait, steps, afterId),
  };
}

/** The wait context with its guidance fields filled in. */
export function withGuidance(wait: WaitContext, steps: readonly StepLike[]): WaitContext {
  return { ...wait, ...describeWait(wait, steps) };
}
