import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** The CSP of `/api/*` JSON answers: nothing may load, nothing may frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The CSP of the web console (`/`, `/assets/*`, its routes) and `/api/docs`: its own assets only. */
export const CONSOLE_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";

/** The headers hono's `secureHeaders` sets (the CSP is set per path by {@link securityHeaders}). */
function baseHeaders(): MiddlewareHandler {
  return secureHeaders({
    xFrameOptions: "DENY",
    referrerPolicy: "same-origin",
    xContentTypeOptions: true,
    // Served over plain HTTP on loopback by default; HSTS belongs to the TLS proxy in front, if any.
    strictTransportSecurity: false,
    // Cross-origin API clients listed in VETTED_CORS_ORIGINS read answers through CORS, which CORP does not affect.
    crossOriginResourcePolicy: "same-origin",
    overwrite: true,
  });
}

/** True for the paths that serve documents a browser renders with their own assets (console, API docs). */
function isConsolePath(path: string): boolean {
  return !path.startsWith("/api/") || path === "/api/docs";
}

/**
 * Security headers on every answer: `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
 * `Referrer-Policy: same-origin`, a CSP ({@link API_CSP} for the API, {@link CONSOLE_CSP} for the console
 * and the docs), and `Cache-Control: no-store` on `/api` answers that set no caching of their own (event
 * streams and evidence images keep theirs).
 */
export function securityHeaders(): MiddlewareHandler {
  const base = baseHeaders();
  return async (c, next) => {
    const isConsole = isConsolePath(c.req.path);
    await base(c, next);
    c.res.headers.set("Content-Security-Policy", isConsole ? CONSOLE_CSP : API_CSP);
    if (c.req.path.startsWith("/api") && !c.res.headers.has("Cache-Control")) {
      c.res.headers.set("Cache-Control", "no-store");
    }
  };
}
