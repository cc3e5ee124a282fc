import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { ServerError } from "../errors.js";
import { INBOUND_SMS_PATH } from "../integrations/vonage.js";

/**
 * Paths under /api that stay open without a token: health (so monitors can probe it), telemetry ingest,
 * inbound webhooks, and the API reference — its page and the OpenAPI document describe the API and hold no
 * data (the version they show is public on /api/health too); every data route still needs the token.
 */
const OPEN_PATHS = new Set([
  "/api/health",
  "/api/health/rum",
  INBOUND_SMS_PATH,
  "/api/docs",
  "/api/openapi.json",
]);

/** The static assets of the API reference (Scalar's bundle, its start-up script): open like the page. */
const OPEN_PREFIX = "/api/docs/assets/";

/** Whether `path` stays open without a token (health, telemetry ingest, inbound webhooks, API reference). */
export function isOpenPath(path: string): boolean {
  return OPEN_PATHS.has(path) || path.startsWith(OPEN_PREFIX) || path === "/healthz";
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Requires `Authorization: Bearer <token>` on every /api route but health when a token is configured.
 * Both sides are hashed first so the comparison is constant-time whatever the lengths.
 */
export function requireToken(token: string | undefined): MiddlewareHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (c, next) => {
    if (expected === undefined) return next();
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const given = match?.[1];
    const valid = given !== undefined && timingSafeEqual(digest(given.trim()), expected);
    if (isOpenPath(c.req.path)) {
      // Open, but a caller that sends the token is still known by it (its own rate limit, not the anonymous one).
      if (valid) c.set("actor", "token");
      return next();
    }
    if (!valid) {
      throw new ServerError(
        "UNAUTHORIZED",
        "This server requires an API token: send `Authorization: Bearer <VETTED_API_TOKEN>`.",
        undefined,
        { "WWW-Authenticate": 'Bearer realm="vetted"' },
      );
    }
    c.set("actor", "token");
    return next();
  };
}
