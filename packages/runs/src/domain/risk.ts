import { matchProtectedDomain } from "./providers.js";

/*
 * Risk classification of a computer-use action. Pure: the same action, instruction and page always get
 * the same level.
 */

/** Risk levels, lowest first. */
export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
/** A risk level. */
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The actions a computer-use planner may propose. */
export const ACTION_NAMES = ["open", "click", "type", "select", "press", "scroll", "wait", "read"] as const;
/** An action name. */
export type ActionName = (typeof ACTION_NAMES)[number];

/** Words naming an action that moves money or data for good: purchase, payment, transfer, delete, send. */
export const CRITICAL_WORDS =
  /\b(purchase|purchases|buy|pay|payment|payments|checkout|place\s+order|order\s+now|transfer|wire|delete|remove|erase|send)\b/i;

/** What the classifier looks at. */
export interface RiskInput {
  name: ActionName;
  args: Record<string, unknown>;
  instruction: string;
  /** The URL of the frame the action acts in (or opens), when known. */
  frameUrl?: string | undefined;
  /** The accessible name of the element acted on (click, press on a control), when known. */
  targetName?: string | undefined;
  protectedDomains: readonly string[];
}

/** A risk level and why. */
export interface RiskDecision {
  level: RiskLevel;
  require_confirmation: boolean;
  /** Why the level was chosen (`protected_domain`, `critical_action`, `risky_words`, `action_kind`). */
  because: string;
  provider_domain?: string;
}

/** Every string inside `value` (args are small JSON objects). */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringsOf);
  return [];
}

function decided(level: RiskLevel, because: string, extra: { provider_domain?: string } = {}): RiskDecision {
  return { level, require_confirmation: level === "high" || level === "critical", because, ...extra };
}

/**
 * Classifies an action: `critical` when it acts on a protected provider domain (the frame it acts in, or
 * the URL it opens) or is itself a purchase/payment/transfer/delete/send (a click or key press on a control
 * so named); `high` when such words appear anywhere in the action's name, args or the instruction; else
 * `medium` for click/type/select/open/press and `low` for scroll/wait/read. `high` and `critical` require
 * a person's confirmation before they execute.
 */
export function classifyRisk(input: RiskInput): RiskDecision {
  const urls = [input.frameUrl, input.name === "open" ? input.args.url : undefined].filter(
    (u): u is string => typeof u === "string",
  );
  for (const url of urls) {
    const domain = matchProtectedDomain(url, input.protectedDomains);
    if (domain !== undefined) return decided("critical", "protected_domain", { provider_domain: domain });
  }
  const acting = input.name === "click" || input.name === "press";
  if (acting && input.targetName !== undefined && CRITICAL_WORDS.test(input.targetName)) {
    return decided("critical", "critical_action");
  }
  const words = [input.name, input.instruction, input.targetName ?? "", ...stringsOf(input.args)];
  if (words.some((w) => CRITICAL_WORDS.test(w))) return decided("high", "risky_words");
  const low = input.name === "scroll" || input.name === "wait" || input.name === "read";
  return decided(low ? "low" : "medium", "action_kind");
}
