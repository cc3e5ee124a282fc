import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import {
  isCardNumber,
  REDACTED,
  redactSensitiveJson,
  sensitiveKindOf,
} from "../../domain/reconstruction/sensitive.js";

const SECRET_HEADERS = new Set(["cookie", "set-cookie", "proxy-authorization"]);
/** Credential headers kept as a fingerprint, so reconstruction can tell which response value they carry. */
const FINGERPRINTED_HEADERS = new Set(["authorization", "x-api-key", "x-auth-token"]);
/** Response bodies kept in a session's HAR: JSON and HTML documents up to these sizes (characters). */
const KEPT_BODY_CHARS: Array<[RegExp, number]> = [
  [/json/i, 256 * 1024],
  [/html/i, 512 * 1024],
];

interface HarNameValue {
  name: string;
  value: string;
}

/** A short SHA-256 fingerprint of a credential: enough to match it, too little to recover it. */
export function fingerprint(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}

function fingerprinted(value: string): string {
  const m = /^(\S+)\s+(\S.*)$/.exec(value);
  if (m?.[1] !== undefined && m[2] !== undefined && /^(bearer|token|basic)$/i.test(m[1])) {
    return `${m[1]} [redacted:${fingerprint(m[2])}]`;
  }
  return `[redacted:${fingerprint(value)}]`;
}

function redactHeaders(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const h of list as HarNameValue[]) {
    if (typeof h?.name !== "string" || typeof h.value !== "string") continue;
    const name = h.name.toLowerCase();
    if (SECRET_HEADERS.has(name)) h.value = REDACTED;
    else if (FINGERPRINTED_HEADERS.has(name)) h.value = fingerprinted(h.value);
  }
}

function redactValues(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list as HarNameValue[]) if (c !== null && typeof c === "object") c.value = REDACTED;
}

function redactParams(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const p of list as HarNameValue[]) {
    if (p === null || typeof p !== "object" || typeof p.value !== "string") continue;
    if (sensitiveKindOf(String(p.name)) !== undefined || isCardNumber(p.value)) p.value = REDACTED;
  }
}

/** A request body with its password, card and one-time-code fields redacted; other formats go whole. */
function redactBody(text: string, mimeType: string): string {
  if (/json/i.test(mimeType)) {
    try {
      return JSON.stringify(redactSensitiveJson(JSON.parse(text)));
    } catch {
      return REDACTED;
    }
  }
  if (/x-www-form-urlencoded/i.test(mimeType)) {
    const form = new URLSearchParams(text);
    for (const [name, value] of [...form]) {
      if (sensitiveKindOf(name) !== undefined || isCardNumber(value)) form.set(name, REDACTED);
    }
    return form.toString();
  }
  return REDACTED;
}

function redactResponseContent(content: Record<string, unknown> | undefined): void {
  if (content === undefined || typeof content.text !== "string") return;
  const mime = String(content.mimeType ?? "");
  const rule = KEPT_BODY_CHARS.find(([re]) => re.test(mime));
  if (rule === undefined || content.encoding === "base64" || content.text.length > rule[1]) {
    delete content.text;
    delete content.encoding;
    return;
  }
  if (/json/i.test(mime)) content.text = redactBody(content.text, mime);
}

/**
 * Rewrites a session's HAR without what a person typed or was given: password, card and one-time-code
 * fields of request bodies (JSON and forms; other bodies whole), cookie values and proxy credentials are
 * replaced by `[redacted]`; `Authorization` and API-key headers by a fingerprint (`Bearer [redacted:…]`,
 * so reconstruction can match them to the response that issued them). Response bodies stay only for JSON
 * (its secret fields redacted) and HTML. URLs, statuses, timings and sizes stay. A HAR that does not parse
 * is left as it is.
 */
export function redactHar(path: string): void {
  let har: { log?: { entries?: unknown[] } };
  try {
    har = JSON.parse(readFileSync(path, "utf8")) as typeof har;
  } catch {
    return;
  }
  for (const raw of har.log?.entries ?? []) {
    const entry = raw as { request?: Record<string, unknown>; response?: Record<string, unknown> };
    const req = entry.request;
    if (req !== undefined) {
      redactHeaders(req.headers);
      redactValues(req.cookies);
      const post = req.postData as { text?: string; params?: unknown; mimeType?: string } | undefined;
      if (post !== undefined) {
        if (typeof post.text === "string") post.text = redactBody(post.text, String(post.mimeType ?? ""));
        redactParams(post.params);
      }
    }
    if (entry.response !== undefined) {
      redactHeaders(entry.response.headers);
      redactValues(entry.response.cookies);
      redactResponseContent(entry.response.content as Record<string, unknown> | undefined);
    }
  }
  writeFileSync(path, JSON.stringify(har));
}
