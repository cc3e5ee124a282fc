import type { Selector } from "../browser-steps.js";
import { buildFlowDraft, type DraftStep } from "../flow-draft.js";
import type { HtmlControl } from "./html.js";
import type { PlanContext, ReconstructionInputs } from "./inputs.js";
import {
  clampConfidence,
  type FlowPlan,
  type PlannedStep,
  type StepConfidence,
  uniqueStepId,
} from "./plan.js";
import { sensitiveKindOf } from "./sensitive.js";
import { varNameOf } from "./values.js";

/*
 * The browser planner: a recording's events (through the session draft builder) or a page's static forms
 * become browser steps with selector candidates — form fields `type` with params, submit buttons `click`;
 * a one-time-code field becomes an `otp_gate` and `${gate.otp_code}`. Pure.
 */

function bestScore(selectors: readonly Selector[]): number {
  return Math.max(0.3, ...selectors.map((s) => s.score ?? 0.5));
}

function stepConfidence(step: DraftStep): StepConfidence {
  if (step.type === "navigate") return { step_id: step.id, confidence: 0.95, reasons: [] };
  const sel = step.target.selectors;
  const score = clampConfidence(bestScore(sel) + (sel.length > 1 ? 0.05 : 0));
  return {
    step_id: step.id,
    confidence: score,
    reasons: score < 0.78 ? ["its element has no stable selector (no role, label or test id)"] : [],
  };
}

function fromEvents(inputs: ReconstructionInputs): FlowPlan {
  const draft = buildFlowDraft(inputs.startUrl ?? "about:blank", inputs.events ?? []);
  const otpNames = new Set(
    (inputs.events ?? []).flatMap((e) =>
      e.kind === "type" && e.secret?.kind === "otp" ? [e.secret.name] : [],
    ),
  );
  const steps: PlannedStep[] = [];
  const confidence: StepConfidence[] = [];
  const ids = new Set(draft.steps.map((s) => s.id));
  const secrets = new Set(draft.secrets);
  for (const step of draft.steps) {
    const ref = step.type === "type" ? /^\$\{secrets\.([A-Za-z0-9_]+)\}$/.exec(step.value)?.[1] : undefined;
    if (step.type === "type" && ref !== undefined && (otpNames.has(ref) || sensitiveKindOf(ref) === "otp")) {
      const gateId = uniqueStepId(`otp ${step.id}`, ids);
      steps.push({ id: gateId, type: "otp_gate", prompt: "Enter the one-time code you were sent" });
      confidence.push({ step_id: gateId, confidence: 0.95, reasons: [] });
      steps.push({ ...step, value: "${gate.otp_code}" });
      secrets.delete(ref);
    } else {
      steps.push(step);
    }
    confidence.push(stepConfidence(step));
  }
  return {
    kind: "browser",
    name: draft.name,
    start_url: draft.start_url,
    steps,
    secrets: [...secrets].sort(),
    params: [],
    confidence,
    approvals: [],
    dropped: [],
  };
}

function selectorsOf(c: HtmlControl): Selector[] {
  const out: Selector[] = [];
  if (c.tag === "button" || c.type === "submit") {
    if (c.text !== "") out.push({ kind: "role", value: "button", name: c.text, score: 0.9 });
  } else if (c.label !== undefined) {
    out.push({ kind: "label", value: c.label, score: 0.9 });
  }
  if (c.testId !== undefined) out.push({ kind: "testid", value: c.testId, score: 0.95 });
  if (c.id !== undefined && /^[A-Za-z][\w-]*$/.test(c.id))
    out.push({ kind: "css", value: `#${c.id}`, score: 0.8 });
  if (c.name !== undefined && /^[\w-]+$/.test(c.name)) {
    out.push({ kind: "css", value: `${c.tag}[name="${c.name}"]`, score: 0.7 });
  }
  return out.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
}

function valueFor(c: HtmlControl, plan: { secrets: Set<string>; params: Map<string, string> }): string {
  const key = varNameOf(c.name ?? c.id ?? c.label ?? "field");
  const kind =
    c.autocomplete === "one-time-code"
      ? "otp"
      : c.autocomplete?.startsWith("cc-")
        ? "card"
        : sensitiveKindOf(key);
  if (kind === "otp") return "${gate.otp_code}";
  if (kind !== undefined || c.type === "password") {
    plan.secrets.add(key);
    return `\${secrets.${key}}`;
  }
  plan.params.set(key, "");
  return `\${params.${key}}`;
}

function fromHtml(inputs: ReconstructionInputs): FlowPlan {
  const html = inputs.html;
  const ids = new Set<string>();
  const steps: PlannedStep[] = [];
  const confidence: StepConfidence[] = [];
  const acc = { secrets: new Set<string>(), params: new Map<string, string>() };
  const start = inputs.startUrl ?? "${params.start_url}";
  if (inputs.startUrl === undefined) acc.params.set("start_url", "");
  const nav = uniqueStepId("navigate", ids);
  steps.push({ id: nav, type: "navigate", url: start });
  confidence.push({ step_id: nav, confidence: inputs.startUrl === undefined ? 0.7 : 0.95, reasons: [] });
  for (const c of html?.controls ?? []) {
    const selectors = selectorsOf(c);
    if (selectors.length === 0) continue;
    const submit = c.tag === "button" || c.type === "submit";
    if (!submit && c.form < 0) continue;
    const value = submit ? "" : valueFor(c, acc);
    if (value === "${gate.otp_code}") {
      const gateId = uniqueStepId("otp gate", ids);
      steps.push({ id: gateId, type: "otp_gate", prompt: "Enter the one-time code you were sent" });
      confidence.push({ step_id: gateId, confidence: 0.95, reasons: [] });
    }
    const id = uniqueStepId(
      `${submit ? "click" : c.tag === "select" ? "select" : "type"} ${c.name ?? c.id ?? c.text}`,
      ids,
    );
    const target = { selectors };
    if (submit) steps.push({ id, type: "click", target });
    else if (c.tag === "select") steps.push({ id, type: "select", target, option: value });
    else steps.push({ id, type: "type", target, value });
    const score = clampConfidence(bestScore(selectors) + (selectors.length > 1 ? 0.05 : 0));
    confidence.push({
      step_id: id,
      confidence: score,
      reasons: score < 0.78 ? ["no label, role or test id"] : [],
    });
  }
  return {
    kind: "browser",
    name: `Reconstructed from ${html?.title || "an HTML page"}`,
    start_url: inputs.startUrl ?? "",
    steps,
    secrets: [...acc.secrets].sort(),
    params: [...acc.params.keys()].map((key) => ({ key })),
    confidence,
    approvals: [],
    dropped: [],
  };
}

/** Plans browser steps from a recording (when it has events) or else from the page's static forms. */
export function planBrowserFlow(inputs: ReconstructionInputs, _ctx: PlanContext): FlowPlan {
  return (inputs.events ?? []).length > 0 ? fromEvents(inputs) : fromHtml(inputs);
}
