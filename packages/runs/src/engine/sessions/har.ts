import { readFileSync, writeFileSync } from "node:fs";

const REDACTED = "[redacted]";
const SECRET_HEADERS = new Set(["cookie", "set-cookie", "authorization", "proxy-authorization", "x-api-key"]);

interface HarNameValue {
  name: string;
  value: string;
}

function redactHeaders(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const h of list as HarNameValue[]) {
    if (typeof h?.name === "string" && SECRET_HEADERS.has(h.name.toLowerCase())) h.value = REDACTED;
  }
}

function redactValues(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list as HarNameValue[]) if (c !== null && typeof c === "object") c.value = REDACTED;
}

/**
 * Rewrites a session's HAR without what a person typed or was given: request bodies (a login form's
 * password), cookie values, and credential headers are replaced by `[redacted]`; URLs, statuses, timings
 * and sizes stay. A HAR that does not parse is left as it is.
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
      const post = req.postData as { text?: string; params?: unknown } | undefined;
      if (post !== undefined) {
        if (typeof post.text === "string") post.text = REDACTED;
        redactValues(post.params);
      }
    }
    if (entry.response !== undefined) {
      redactHeaders(entry.response.headers);
      redactValues(entry.response.cookies);
    }
  }
  writeFileSync(path, JSON.stringify(har));
}
