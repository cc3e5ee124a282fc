import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";

/** An `X-Trace-Id` a client may send: 1–128 letters, digits and `._:-`. */
const TRACE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A W3C `traceparent`: version, 32-hex trace id, 16-hex parent id, flags. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The trace id of a W3C `traceparent` header, when it is valid (not version ff, not all zeros). */
export function traceIdOfTraceparent(header: string | undefined): string | undefined {
  const match = TRACEPARENT.exec((header ?? "").trim().toLowerCase());
  if (match === null) return undefined;
  const [, version, traceId, parentId] = match;
  if (version === "ff" || traceId === undefined || /^0+$/.test(traceId) || /^0+$/.test(parentId ?? "")) {
    return undefined;
  }
  return traceId;
}

/**
 * Gives every request a trace id — the `X-Trace-Id` it sent, else the trace id of its W3C `traceparent`,
 * else a new 32-hex id — and answers it in `X-Trace-Id` (set before the handler for error answers and again
 * on the final response).
 */
export function traceId(): MiddlewareHandler<{ Variables: { traceId: string } }> {
  return async (c, next) => {
    const sent = c.req.header("X-Trace-Id");
    const id =
      (sent !== undefined && TRACE_ID.test(sent) ? sent : undefined) ??
      traceIdOfTraceparent(c.req.header("traceparent")) ??
      randomBytes(16).toString("hex");
    c.set("traceId", id);
    c.header("X-Trace-Id", id);
    await next();
    if (!c.res.headers.has("X-Trace-Id")) c.res.headers.set("X-Trace-Id", id);
  };
}
