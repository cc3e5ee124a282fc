import type { ParamSpec } from "./template.js";

/** What an export shows instead of a secret-looking default. */
export const MASKED = "***";

/** Param names that hold credentials even when declared as plain strings. */
const SENSITIVE_NAME =
  /pass(word|wd|phrase)?|secret|token|api_?key|credential|otp|pin|cvc|cvv|card|iban|ssn/i;

/**
 * The default keys an export masks: defaults of `secret` params (none are stored, kept for safety) and of
 * params whose name reads like a credential (`password`, `api_key`, `card_number`…).
 */
export function maskedKeys(
  specs: readonly ParamSpec[],
  defaults: Readonly<Record<string, unknown>>,
): string[] {
  const types = new Map(specs.map((s) => [s.key, s.type]));
  return Object.keys(defaults).filter((k) => types.get(k) === "secret" || SENSITIVE_NAME.test(k));
}
