import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { ServerError } from "../errors.js";
import { SlidingWindow } from "../rate-window.js";
import { isOpenPath } from "./auth.js";

/** The limits of `rateLimit`, per identity and route family, per minute. */
export interface RateLimits {
  /** Every caller (VETTED_RATE_LIMIT_PER_MINUTE). */
  perMinute: number;
  /** Unauthenticated calls to the routes open when a token is configured (VETTED_RATE_LIMIT_ANON_PER_MINUTE). */
  anonPerMinute: number;
  /** Whether an API token is configured (then open routes called without it get the anonymous limit). */
  tokenConfigured: boolean;
  /** Called for each refused request (the metrics counter). */
  onLimited?: (info: { family: string; anonymous: boolean }) => void;
  /** The windows (default: new ones of this process); `startRateSync` shares them over the database. */
  windows?: SlidingWindow;
}

/** The length of a rate-limit window. */
export const WINDOW_MS = 60_000;

/** The route family of a path: the segment after `/api/` (`runs`, `health`, …); `/healthz` is `health`. */
export function routeFamily(path: string): string {
  if (path === "/healthz") return "health";
  const segment = /^\/api\/([^/]+)/.exec(path)?.[1];
  return segment === undefined ? "api" : segment.toLowerCase().slice(0, 40);
}

/** The client's address as the socket reports it (a proxy in front makes every client its address). */
function clientAddress(c: Context): string {
  const env: unknown = c.env;
  const incoming =
    typeof env === "object" && env !== null && "incoming" in env
      ? (env.incoming as IncomingMessage)
      : undefined;
  return incoming?.socket.remoteAddress ?? "unknown";
}

/**
 * Sliding-window rate limits per identity (the API token, else the client address) and route family. Runs
 * after the token check (so `actor` is known) and before any body is read. Over the limit: 429
 * RATE_LIMITED with `Retry-After`. The windows live in this process; shared with the other processes on
 * the database when `limits.windows` is exchanged by `startRateSync` (see rate-sync.ts).
 */
export function rateLimit(limits: RateLimits): MiddlewareHandler {
  const windows = limits.windows ?? new SlidingWindow(WINDOW_MS);
  return async (c, next) => {
    const family = routeFamily(c.req.path);
    const authenticated = c.get("actor") === "token";
    const anonymous = limits.tokenConfigured && !authenticated && isOpenPath(c.req.path);
    const limit = anonymous ? limits.anonPerMinute : limits.perMinute;
    const identity = authenticated ? "token" : `addr:${clientAddress(c)}`;
    const decision = windows.hit(`${identity}|${family}|${anonymous ? "anon" : "all"}`, limit, Date.now());
    if (!decision.allowed) {
      limits.onLimited?.({ family, anonymous });
      const seconds = Math.ceil(decision.retryAfterMs / 1000);
      throw new ServerError(
        "RATE_LIMITED",
        `Too many requests to /api/${family} from this ${authenticated ? "token" : "address"}: the limit is ${limit} a minute${anonymous ? " without a token (VETTED_RATE_LIMIT_ANON_PER_MINUTE)" : " (VETTED_RATE_LIMIT_PER_MINUTE)"}; retry in ${seconds} s.`,
        { limit, window_s: WINDOW_MS / 1000, family, retry_after_s: seconds },
        { "Retry-After": String(seconds) },
      );
    }
    c.header("RateLimit-Limit", String(limit));
    c.header("RateLimit-Remaining", String(decision.remaining));
    return next();
  };
}
