import type { MiddlewareHandler } from "hono";

/** Up to how many bytes of an unread body are read and discarded so the client sees the early answer. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;
/** How long draining may take before the connection is simply closed. */
const DRAIN_DEADLINE_MS = 5_000;

/**
 * Reads and discards what is left of a request body, up to {@link DRAIN_LIMIT_BYTES} and
 * {@link DRAIN_DEADLINE_MS}. Resolves `true` when the body was read to its end.
 */
async function drain(body: ReadableStream<Uint8Array>): Promise<boolean> {
  const reader = body.getReader();
  const deadline = setTimeout(() => void reader.cancel().catch(() => undefined), DRAIN_DEADLINE_MS);
  let total = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      total += chunk.value.byteLength;
      if (total > DRAIN_LIMIT_BYTES) {
        await reader.cancel();
        return false;
      }
    }
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(deadline);
    reader.releaseLock();
  }
}

/**
 * For a request whose body the app never read (an early 401, 403, 413 or 415): reads and discards the rest
 * of a moderately sized body first (a "lingering close"), so a client still sending it receives the answer
 * instead of a reset connection, and answers `Connection: close`, so a keep-alive client never sends its
 * next request into a closing socket.
 */
export function closeOnUnreadBody(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const body = c.req.raw.body;
    const unread = body !== null && !c.req.raw.bodyUsed && Object.keys(c.req.bodyCache).length === 0;
    if (!unread) return;
    c.header("Connection", "close");
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    if (!Number.isFinite(declared) || declared <= DRAIN_LIMIT_BYTES) await drain(body);
  };
}
