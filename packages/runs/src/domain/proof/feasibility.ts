import { needsStartCode } from "../gate-transitions.js";
import { hostOfUrl } from "../host.js";
import { references } from "../interpolate.js";
import { matchProtectedDomain } from "../providers.js";
import type { Step } from "../steps.js";
import type { Policies } from "../template.js";
import { CAPABILITIES, type Capability, type Feasibility } from "./schemas.js";

/** What the outbound policy said about a URL (the engine asks it; this module does not resolve names). */
export type HostVerdict =
  | { kind: "allowed" }
  | { kind: "denied"; host: string; rule: string }
  | { kind: "unresolved"; host: string; message: string };

/** What feasibility is judged from. */
export interface FeasibilityInput {
  templateId: string;
  steps: readonly Step[];
  policies: Policies;
  /** An absolute http(s) URL. */
  target: string;
  /** The outbound policy's verdict on the target. */
  targetVerdict: HostVerdict;
  /** The outbound policy's verdict on each literal host the steps call (keyed by the step's URL). */
  stepVerdicts: ReadonlyMap<string, HostVerdict>;
  protectedDomains: readonly string[];
  browserAvailable: boolean;
}

const BROWSER_TYPES = new Set(["navigate", "click", "type", "select", "wait_for", "extract", "screenshot"]);

/** True when the step runs in the browser (a browser step type, or the page form of `assert`). */
function usesBrowser(step: Step): boolean {
  if (BROWSER_TYPES.has(step.type)) return true;
  return step.type === "assert" && (step.target ?? step.text ?? step.url ?? step.visible) !== undefined;
}

/** The literal URL a step goes to (`http` and `navigate`); undefined when it has none or is a reference. */
export function literalUrlOf(step: Step): string | undefined {
  const url = step.type === "http" || step.type === "navigate" ? step.url : undefined;
  if (url === undefined || url.includes("${") || hostOfUrl(url) === undefined) return undefined;
  return url;
}

function hostLabel(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function capabilitiesOf(input: FeasibilityInput): Capability[] {
  const { steps, target, protectedDomains } = input;
  const need = new Set<Capability>();
  for (const step of steps) {
    if (usesBrowser(step)) need.add("browser");
    if (step.type === "http") need.add("outbound_http");
    if (step.type === "otp_gate" || references(step, "gate", "otp_code")) need.add("otp_source");
    if (step.type === "approval_gate") need.add("approval");
    if (step.type === "input_gate" || references(step, "gate", "input_text")) need.add("human_input");
    const url = literalUrlOf(step);
    if (url !== undefined && matchProtectedDomain(url, protectedDomains) !== undefined) {
      need.add("protected_provider_approval");
    }
  }
  if (matchProtectedDomain(target, protectedDomains) !== undefined) need.add("protected_provider_approval");
  // A template that requires a code asks for one before its first step when no otp_gate does.
  if (needsStartCode(steps, input.policies)) need.add("otp_source");
  return CAPABILITIES.filter((c) => need.has(c));
}

function blockedOf(input: FeasibilityInput, needs: readonly Capability[]): Feasibility["blocked_reasons"] {
  const out: Feasibility["blocked_reasons"] = [];
  if (needs.includes("browser") && !input.browserAvailable) {
    out.push({
      code: "BROWSER_UNAVAILABLE",
      message: "The template has browser steps and no browser is installed.",
    });
  }
  const t = input.targetVerdict;
  if (t.kind === "denied") {
    out.push({ code: "TARGET_DENIED", message: `The outbound policy denies ${t.host} (${t.rule}).` });
  } else if (t.kind === "unresolved") {
    out.push({ code: "TARGET_UNRESOLVED", message: `${t.host} does not resolve: ${t.message}` });
  }
  for (const v of input.stepVerdicts.values()) {
    if (v.kind === "denied") {
      out.push({
        code: "STEP_HOST_DENIED",
        message: `A step calls ${v.host}, which the outbound policy denies (${v.rule}).`,
      });
    }
  }
  return out;
}

function hintsOf(input: FeasibilityInput, needs: readonly Capability[]): string[] {
  const out: string[] = [];
  const targetHost = hostLabel(input.target);
  for (const step of input.steps) {
    const url = literalUrlOf(step);
    if (url === undefined) continue;
    const host = hostLabel(url);
    const provider = matchProtectedDomain(url, input.protectedDomains);
    if (host !== targetHost && provider === undefined) {
      out.push(
        `Step ${step.id} calls ${host}, not the target ${targetHost}: make its URL a parameter (e.g. \${params.base_url}) before running against the target.`,
      );
    }
    if (provider !== undefined) {
      out.push(
        `Step ${step.id} reaches the protected provider ${provider}: each run pauses for a person's approval there.`,
      );
    }
  }
  if (needs.includes("otp_source") && input.policies.otp.source === "manual") {
    out.push(
      'The template waits for one-time codes typed by a person: set policies.otp.source to "inbound_sms" (with the number codes are texted to) to answer them unattended.',
    );
  }
  if (needs.includes("browser") && !input.browserAvailable) {
    out.push("Install Chromium (or set VETTED_CHROMIUM_PATH) on the server that runs the template.");
  }
  return out;
}

/**
 * Whether a template can run against `target`: the capabilities its steps and gates need (browser,
 * outbound HTTP, an OTP source, approval, human input, protected-provider approval), what blocks it (no
 * browser, the target or a step's host denied or unresolved by the outbound policy), and hints for moving
 * it to the target (hard-coded hosts, manual one-time codes, protected providers on the way).
 */
export function assessFeasibility(input: FeasibilityInput): Feasibility {
  const required = capabilitiesOf(input);
  const blocked = blockedOf(input, required);
  return {
    template_id: input.templateId,
    target: input.target,
    supported: blocked.length === 0,
    blocked_reasons: blocked,
    required_capabilities: required,
    migration_hints: hintsOf(input, required),
  };
}
