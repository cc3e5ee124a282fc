import { REDACTED } from "../domain/transitions.js";

/**
 * Values shorter than this are only redacted where a whole string (or number) equals them: replacing every
 * `42` inside longer text would mangle ids, times and counts while hiding nothing worth hiding.
 */
export const MIN_SUBSTRING_LENGTH = 4;

/** Hides a run's secret values and one-time codes, and their common encodings, in what the engine stores. */
export interface Redactor {
  /**
   * `text` with every known value (plain, JSON-escaped, URL-encoded, in any letter case; base64) replaced
   * by `[redacted]`.
   */
  redactText(text: string): string;
  /** `value` with {@link Redactor.redactText} applied to every string (and object key) inside it. */
  redactDeep<T>(value: T): T;
  /** True when `value` (any JSON value) holds a known value or an encoding of one anywhere. */
  reveals(value: unknown): boolean;
}

const BASE64_TOKEN = /[A-Za-z0-9+/_-]+=*/g;

function tryEncode(encode: (s: string) => string, value: string): string | undefined {
  try {
    return encode(value);
  } catch {
    return undefined; // a lone surrogate cannot be URL-encoded
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The plain-text forms of `value` to find as substrings: itself, JSON-escaped, URL- and form-encoded. */
function textForms(value: string): string[] {
  const forms = [value, JSON.stringify(value).slice(1, -1)];
  for (const encoded of [
    tryEncode(encodeURIComponent, value),
    tryEncode(encodeURI, value),
    tryEncode((s) => new URLSearchParams({ v: s }).toString().slice(2), value),
  ]) {
    if (encoded !== undefined) forms.push(encoded);
  }
  return forms;
}

/**
 * The base64 characters fully determined by `value`'s bytes at each of the three byte alignments it can
 * have inside a larger encoded blob (standard and URL-safe alphabets). A token holding one of them holds
 * the value, whatever surrounds it.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const cores = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const start = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= MIN_SUBSTRING_LENGTH) {
      cores.add(core);
      cores.add(core.replaceAll("+", "-").replaceAll("/", "_"));
    }
  }
  return [...cores];
}

/** Runs `fn` on the parts of `text` between redaction markers, so redacting twice changes nothing. */
function betweenMarkers(text: string, fn: (part: string) => string): string {
  return text
    .split(REDACTED)
    .map((part) => (part.length === 0 ? part : fn(part)))
    .join(REDACTED);
}

/**
 * Builds a redactor for `values` (a run's secret values and one-time codes). Values of at least
 * {@link MIN_SUBSTRING_LENGTH} characters are found anywhere: as themselves, JSON-escaped, URL-encoded
 * (`encodeURIComponent`, `encodeURI`, form encoding with `+` for spaces, either hex case) and in base64
 * (standard or URL-safe, padded or not, alone or inside a larger blob — the whole base64 token goes).
 * Text forms match in any letter case: a URL parser lower-cases a host, so a secret spliced into one
 * comes back folded in errors. Shorter values are redacted only where a whole string equals them (in any
 * case).
 */
export function createRedactor(values: Iterable<string>): Redactor {
  const kept = new Set<string>();
  for (const value of values) if (value.length > 0 && value !== REDACTED) kept.add(value);
  // Most runs hold no secret: one shared redactor that changes nothing, built once.
  return kept.size === 0 ? NOTHING_TO_HIDE : redactorOf(kept);
}

/** The redactor of no values: every value passes through unchanged. */
const NOTHING_TO_HIDE: Redactor = Object.freeze({
  redactText: (text: string) => text,
  redactDeep: <T>(value: T) => value,
  reveals: () => false,
});

function redactorOf(values: ReadonlySet<string>): Redactor {
  const exact = new Set<string>();
  const forms = new Set<string>();
  const cores = new Set<string>();
  for (const value of values) {
    exact.add(value.toLowerCase());
    if (value.length < MIN_SUBSTRING_LENGTH) continue;
    for (const form of textForms(value)) forms.add(form);
    for (const core of base64Cores(value)) cores.add(core);
  }
  // Longest first, so a form that contains another is replaced whole (alternatives are tried in order).
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  const anyForm = ordered.length === 0 ? undefined : new RegExp(ordered.map(escapeRegExp).join("|"), "gi");
  const coreList = [...cores];

  function redactPart(part: string): string {
    if (exact.has(part.toLowerCase())) return REDACTED;
    const out = anyForm === undefined ? part : part.replace(anyForm, REDACTED);
    if (coreList.length === 0) return out;
    return betweenMarkers(out, (piece) =>
      piece.replace(BASE64_TOKEN, (token) => (coreList.some((c) => token.includes(c)) ? REDACTED : token)),
    );
  }

  function redactText(text: string): string {
    if (text.length === 0) return text;
    return betweenMarkers(text, redactPart);
  }

  function redactDeep<T>(value: T): T {
    if (typeof value === "string") return redactText(value) as T;
    if (Array.isArray(value)) return value.map((item) => redactDeep(item)) as T;
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactText(k), redactDeep(v)])) as T;
    }
    return value;
  }

  function reveals(value: unknown): boolean {
    if (typeof value === "string") return redactText(value) !== value;
    if (typeof value === "number") return redactText(String(value)) !== String(value);
    if (Array.isArray(value)) return value.some(reveals);
    if (value !== null && typeof value === "object") {
      return Object.entries(value).some(([k, v]) => reveals(k) || reveals(v));
    }
    return false;
  }

  return { redactText, redactDeep, reveals };
}
