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
  /**
   * The absolute URLs the action would send the page to, as the engine resolved them from the live page:
   * the action of the form the control submits (its `formaction`, else the form's), the link's target.
   */
  targets?: readonly string[] | undefined;
  protectedDomains: readonly string[];
}

/** A risk level and why. */
export interface RiskDecision {
  level: RiskLevel;
  require_confirmation: boolean;
  /**
   * Why the level was chosen (`protected_domain`, `protected_target`, `critical_action`, `risky_words`,
   * `action_kind`).
   */
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

/**
 * `url` and every absolute http(s) URL carried in its query: a link to the shop's own `/go?to=<provider>`
 * reaches the provider through a redirect, and the destination it names is all a preview can know of it.
 */
function reachedBy(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const carried = [...parsed.searchParams.values()].filter((v) => /^https?:\/\//i.test(v.trim()));
  return [url, ...carried.map((v) => v.trim())];
}

/** The protected provider the first of `urls` (or a URL carried in its query) is on. */
function providerOf(urls: readonly string[], domains: readonly string[]): string | undefined {
  for (const url of urls.flatMap(reachedBy)) {
    const domain = matchProtectedDomain(url, domains);
    if (domain !== undefined) return domain;
  }
  return undefined;
}

function decided(level: RiskLevel, because: string, extra: { provider_domain?: string } = {}): RiskDecision {
  return { level, require_confirmation: level === "high" || level === "critical", because, ...extra };
}

/**
 * Classifies an action: `critical` when it acts on a protected provider domain (the frame it acts in, or
 * the URL it opens), would send the page there (a target: the form it submits, the link it follows, or a
 * provider URL such a target carries in its query, as a redirecting link does) or is itself a purchase/payment/transfer/delete/send (a click or key press on a control
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
  // Judged by where the action leads, not by what its control is called ("Continue", "Details").
  const reached = providerOf(input.targets ?? [], input.protectedDomains);
  if (reached !== undefined) return decided("critical", "protected_target", { provider_domain: reached });
  const acting = input.name === "click" || input.name === "press";
  if (acting && input.targetName !== undefined && CRITICAL_WORDS.test(input.targetName)) {
    return decided("critical", "critical_action");
  }
  const words = [input.name, input.instruction, input.targetName ?? "", ...stringsOf(input.args)];
  if (words.some((w) => CRITICAL_WORDS.test(w))) return decided("high", "risky_words");
  const low = input.name === "scroll" || input.name === "wait" || input.name === "read";
  return decided(low ? "low" : "medium", "action_kind");
}
