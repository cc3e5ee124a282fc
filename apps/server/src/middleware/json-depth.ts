import { exceedsJsonTextDepth, MAX_JSON_DEPTH } from "@vetted/store";
import type { MiddlewareHandler } from "hono";
import { ServerError } from "../errors.js";

/**
 * Judges every request body's nesting before any parser or recursive code sees it: a body nested deeper
 * than `limit` (default {@link MAX_JSON_DEPTH}) is a 400 `NESTING_TOO_DEEP`. The text is read once and
 * stays cached on the request, so the route's JSON validator parses the same text.
 */
export function limitJsonDepth(limit: number = MAX_JSON_DEPTH): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.raw.body === null) return next();
    const text = await c.req.text();
    if (exceedsJsonTextDepth(text, limit)) {
      throw new ServerError(
        "NESTING_TOO_DEEP",
        `The request body nests objects and arrays deeper than ${limit} levels; flatten it.`,
        { limit },
      );
    }
    return next();
  };
}
