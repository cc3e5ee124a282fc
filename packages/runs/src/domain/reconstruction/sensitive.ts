/*
 * What counts as a secret in a recorded request: field names (and a few value shapes) of passwords, card
 * data and one-time codes. Pure: shared by the HAR redaction of sessions and by reconstruction.
 */

/** The kinds of secret a request field may carry. */
export const SENSITIVE_KINDS = ["password", "card", "otp"] as const;
/** A kind of secret. */
export type SensitiveKind = (typeof SENSITIVE_KINDS)[number];

/** The marker a redacted value is replaced with (a fingerprint may follow: `[redacted:ab12…]`). */
export const REDACTED = "[redacted]";

const RULES: Array<[SensitiveKind, RegExp]> = [
  ["otp", /(^|_|-)(otp|one_?time_?(code|password)?|totp|mfa_?code|verification_?code|sms_?code)$|^code$/i],
  ["password", /pass(word|wd|phrase)?$|^pwd$|(^|_)secret$|(^|_)pin$/i],
  [
    "card",
    /card(_?(number|no|num))?$|^cc(_?(num|number|no))?$|^pan$|cvc|cvv|csc|security_?code|^exp(iry|iration)?(_?(date|month|year))?$/i,
  ],
];

/** The secret kind a field name denotes (`password`, `card_number`, `otp`, `code`…), or undefined. */
export function sensitiveKindOf(name: string): SensitiveKind | undefined {
  const key = name.replace(/([a-z])([A-Z])/g, "$1_$2");
  for (const [kind, re] of RULES) if (re.test(key)) return kind;
  return undefined;
}

/** True for a 13–19 digit number (spaces or dashes allowed) that passes the Luhn check. */
export function isCardNumber(value: string): boolean {
  const digits = value.replace(/[ -]/g, "");
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** True for a redaction marker, with or without a fingerprint. */
export function isRedacted(value: string): boolean {
  return value === REDACTED || /^\[redacted:[0-9a-f]{6,64}\]$/.test(value);
}

/** The fingerprint inside a `[redacted:…]` marker, if any. */
export function fingerprintOf(value: string): string | undefined {
  return /\[redacted:([0-9a-f]{6,64})\]/.exec(value)?.[1];
}

/**
 * A JSON value with the values of sensitive keys replaced by {@link REDACTED} (deeply), and card numbers
 * wherever they appear. Returns a new value.
 */
export function redactSensitiveJson(value: unknown, key?: string): unknown {
  if (
    key !== undefined &&
    sensitiveKindOf(key) !== undefined &&
    (typeof value !== "object" || value === null)
  ) {
    return REDACTED;
  }
  if (typeof value === "string") return isCardNumber(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((v) => redactSensitiveJson(v));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSensitiveJson(v, k)]));
  }
  return value;
}
