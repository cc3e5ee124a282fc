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

/**
 * Query-parameter names that carry a credential, compared in snake case without regard to letter case
 * (`apiKey`, `API-KEY` and `api_key` are one name): API keys, tokens, secrets, passwords, signatures,
 * session ids, authorization codes — exactly, or as the last word of a longer name (`x_amz_signature`,
 * `X-Amz-Security-Token`, `stripe_secret`).
 */
const SECRET_PARAM_NAMES =
  /^(api_?key|key|access_?key|secret_?key|private_?key|client_?secret|secret|token|access_?token|refresh_?token|id_?token|auth_?token|bearer|jwt|pass|password|passwd|pwd|auth|authorization|signature|sig|session|session_?id|sid|code|credentials?)$/;
const SECRET_PARAM_SUFFIX = /_(key|token|secret|signature|sig|password|credential|session)$/;

/**
 * Values in a known credential format, whatever the parameter's name: Stripe keys and webhook secrets
 * (`sk_live_…`, `rk_test_…`, `whsec_…`), JWTs (`eyJ….eyJ….…`), GitHub, GitLab and Slack tokens, AWS access
 * key ids, Google API keys, OpenAI and Anthropic keys.
 */
const SECRET_VALUE_FORMATS: readonly RegExp[] = [
  /^(sk|rk|pk)_(live|test)_[A-Za-z0-9]{8,}$/,
  /^whsec_[A-Za-z0-9+/=]{16,}$/,
  /^eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*$/,
  /^(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,})$/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}$/,
  /^(AKIA|ASIA)[0-9A-Z]{16}$/,
  /^AIza[0-9A-Za-z_-]{35}$/,
  /^sk-(proj-|ant-)?[A-Za-z0-9_-]{20,}$/,
];

/** True for a query-parameter name that carries a credential (see {@link SECRET_PARAM_NAMES}), or a {@link sensitiveKindOf} field. */
export function isSecretParamName(name: string): boolean {
  const key = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return SECRET_PARAM_NAMES.test(key) || SECRET_PARAM_SUFFIX.test(key) || sensitiveKindOf(name) !== undefined;
}

/** True for a value in a known credential format (see {@link SECRET_VALUE_FORMATS}), alone or as `Bearer <it>`. */
export function looksLikeSecretValue(value: string): boolean {
  return value
    .trim()
    .split(/[\s,;]+/)
    .some((part) => SECRET_VALUE_FORMATS.some((re) => re.test(part)));
}

/** True for a query parameter whose value must not be kept: a credential by name or by format, not empty. */
export function isSecretQueryParam(name: string, value: string): boolean {
  return value !== "" && !isRedacted(value) && (isSecretParamName(name) || looksLikeSecretValue(value));
}

/**
 * `url` as it may be stored or shown: the value of every credential query parameter replaced by
 * {@link REDACTED}, credentials (`user:pass@`) and the fragment removed. Other parameters stay as sent.
 */
export function redactUrlSecrets(url: URL): string {
  const u = new URL(url.href);
  u.username = "";
  u.password = "";
  u.hash = "";
  const params = [...u.searchParams];
  if (params.some(([k, v]) => isSecretQueryParam(k, v))) {
    u.search = new URLSearchParams(
      params.map(([k, v]): [string, string] => [k, isSecretQueryParam(k, v) ? REDACTED : v]),
    ).toString();
  }
  return u.href;
}
