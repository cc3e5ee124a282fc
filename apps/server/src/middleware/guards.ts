import type { Context, MiddlewareHandler } from "hono";
import { isLoopbackHost } from "../config.js";
import { ServerError } from "../errors.js";
import { INBOUND_SMS_PATH } from "../integrations/vonage.js";

const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]"]);
const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

/** Splits a Host header into its hostname, dropping the port (IPv6 literals keep their brackets). */
export function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.lastIndexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

/**
 * DNS-rebinding guard: a request must name this server in its Host header — the bound address, a loopback
 * name when bound to loopback, or one of `VETTED_ALLOWED_HOSTS`.
 */
export function guardHost(bindHost: string, extraHosts: readonly string[]): MiddlewareHandler {
  const allowed = new Set([bindHost.toLowerCase(), ...extraHosts.map((h) => h.toLowerCase())]);
  if (bindHost.includes(":") && !bindHost.startsWith("[")) allowed.add(`[${bindHost.toLowerCase()}]`);
  const loopbackBind = isLoopbackHost(bindHost);
  const wildcardBind = WILDCARD_BINDS.has(bindHost);
  return async (c, next) => {
    const header = c.req.header("Host");
    const hostname = header === undefined ? undefined : hostnameOf(header);
    const ok =
      hostname !== undefined &&
      (allowed.has(hostname) ||
        (loopbackBind && isLoopbackHost(hostname)) ||
        (wildcardBind && IP_LITERAL.test(hostname)));
    if (!ok) {
      throw new ServerError(
        "FORBIDDEN_HOST",
        `Host ${JSON.stringify(header ?? "")} is not this server; add it to VETTED_ALLOWED_HOSTS if it should be.`,
      );
    }
    return next();
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses cross-origin state-changing requests unless the origin is listed in `VETTED_CORS_ORIGINS`.
 * Same-origin requests (Origin matching Host) and non-browser clients (no Origin header) pass.
 */
export function guardOrigin(allowedOrigins: readonly string[]): MiddlewareHandler {
  const allowed = new Set(allowedOrigins.map((o) => o.replace(/\/$/, "").toLowerCase()));
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const origin = c.req.header("Origin");
    const fetchSite = c.req.header("Sec-Fetch-Site");
    if (origin === undefined) {
      if (fetchSite === "cross-site") {
        throw new ServerError("FORBIDDEN_ORIGIN", "Cross-site requests are refused.");
      }
      return next();
    }
    const normalized = origin.toLowerCase();
    let sameOrigin = false;
    try {
      sameOrigin = new URL(normalized).host === (c.req.header("Host") ?? "").toLowerCase();
    } catch {
      sameOrigin = false;
    }
    if (!sameOrigin && !allowed.has(normalized)) {
      throw new ServerError(
        "FORBIDDEN_ORIGIN",
        `Origin ${origin} may not change state here; list it in VETTED_CORS_ORIGINS to allow it.`,
      );
    }
    return next();
  };
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Whether a request carries a body: a non-zero `Content-Length`, a `Transfer-Encoding`, or — with neither
 * header (a `POST` sent with no body at all, e.g. `curl -X POST`) — a body stream that is not empty. That
 * stream is read once here (bounded by the body limit before this) and stays cached on the request for the
 * JSON validator.
 */
async function carriesBody(c: Context): Promise<boolean> {
  const length = c.req.header("Content-Length");
  if (length !== undefined) return length.trim() !== "0";
  if (c.req.header("Transfer-Encoding") !== undefined) return true;
  if (c.req.raw.body === null) return false;
  return (await c.req.text()).length > 0;
}

/**
 * State-changing /api requests that carry a body must send it as JSON; a request with no body at all
 * passes whatever its Content-Type says (cancel, retry and inbox scan take none).
 */
export function requireJsonBody(): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || c.req.method === "DELETE") return next();
    // Vonage posts its callbacks as a form or as JSON; that route parses both.
    if (c.req.path === INBOUND_SMS_PATH) return next();
    const type = c.req.header("Content-Type");
    const hasBody = await carriesBody(c);
    if (hasBody && (type === undefined || !JSON_TYPE.test(type.split(";")[0]?.trim() ?? ""))) {
      throw new ServerError(
        "UNSUPPORTED_MEDIA_TYPE",
        `Send the request body as JSON with Content-Type: application/json (got ${type ?? "none"}).`,
      );
    }
    return next();
  };
}
