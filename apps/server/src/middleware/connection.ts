import type { MiddlewareHandler } from "hono";

/**
 * Answers `Connection: close` when the request carried a body the app never read (an early 401, 403, 413
 * or 415): the Node adapter drops such a connection after the answer once the unread body is large, and a
 * client told "keep-alive" would send its next request into a closing socket.
 */
export function closeOnUnreadBody(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const unread =
      c.req.raw.body !== null && !c.req.raw.bodyUsed && Object.keys(c.req.bodyCache).length === 0;
    if (unread) c.header("Connection", "close");
  };
}
