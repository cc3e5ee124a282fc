import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import type { Context } from "hono";
import { Hono } from "hono";
import { getMimeType } from "hono/utils/mime";
import type { AppEnv } from "../deps.js";

const IMMUTABLE = "public, max-age=31536000, immutable";
const NO_CACHE = "no-cache";

/** The page `/` answers when the console was not built (or `VETTED_WEB_DIST` points nowhere). */
export function notBuiltPage(webDist: string | undefined): string {
  const where = webDist === undefined ? "(no VETTED_WEB_DIST)" : escapeHtml(webDist);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vetted — console not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>The Vetted web console is not built</h1>
<p>The server looked for it in <code>${where}</code> and found no <code>index.html</code>.</p>
<p>Build it with <code>pnpm --filter @vetted/web build</code> (or start everything with <code>pnpm start</code>
at the repository root), or point <code>VETTED_WEB_DIST</code> at a built console.</p>
<p>The API is up: see <a href="/api/docs">/api/docs</a> and <a href="/api/openapi.json">/api/openapi.json</a>.</p>
</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A regular file under `root` named by a request path, or undefined (missing, a directory, or escaping). */
export async function fileUnder(root: string, relative: string): Promise<string | undefined> {
  if (relative.includes("\0")) return undefined;
  const base = resolve(root);
  const target = resolve(base, `.${sep}${relative}`);
  if (!target.startsWith(base + sep)) return undefined;
  try {
    return (await stat(target)).isFile() ? target : undefined;
  } catch {
    return undefined;
  }
}

/** Answers a file with its content type and cache policy. */
export async function sendFile(c: Context, path: string, cacheControl: string): Promise<Response> {
  const body = await readFile(path);
  const type =
    getMimeType(path) ?? (extname(path) === ".map" ? "application/json" : "application/octet-stream");
  return c.body(new Uint8Array(body), 200, {
    "content-type": type,
    "cache-control": cacheControl,
  });
}

/** True when the request is a browser navigation the console should answer (GET/HEAD, not /api, wants HTML). */
function isConsoleNavigation(c: Context): boolean {
  const method = c.req.method;
  if (method !== "GET" && method !== "HEAD") return false;
  const path = c.req.path;
  if (path === "/api" || path.startsWith("/api/")) return false;
  const accept = c.req.header("accept") ?? "";
  return accept.includes("text/html");
}

/** The console's `index.html` (never cached, so a rebuild is picked up at once) or the not-built page. */
async function sendIndex(c: Context, webDist: string | undefined): Promise<Response> {
  const index = webDist === undefined ? undefined : await fileUnder(webDist, "index.html");
  if (index === undefined) {
    return c.html(notBuiltPage(webDist), 200, { "cache-control": NO_CACHE });
  }
  return sendFile(c, index, NO_CACHE);
}

/**
 * The web console served from its built `dist` (`VETTED_WEB_DIST`): `/` and every SPA route answer
 * `index.html` (no-cache), hashed `/assets/*` are immutable for a year, other top-level files (icons) are
 * served as they are. The API is untouched: `/api/*` never falls back to the console.
 */
export function createWebConsole(webDist: string | undefined) {
  const routes = new Hono<AppEnv>()
    .get("/", (c) => sendIndex(c, webDist))
    .get("/assets/*", async (c, next) => {
      const file =
        webDist === undefined ? undefined : await fileUnder(join(webDist, "assets"), c.req.path.slice(8));
      if (file === undefined) return next();
      return sendFile(c, file, IMMUTABLE);
    });

  /** For the app's not-found handler: a console answer for navigations and top-level files, else undefined. */
  async function fallback(c: Context): Promise<Response | undefined> {
    if (webDist !== undefined && (c.req.method === "GET" || c.req.method === "HEAD")) {
      const name = c.req.path.slice(1);
      if (/^[\w.-]+\.\w+$/.test(name) && name !== "index.html") {
        const file = await fileUnder(webDist, name);
        if (file !== undefined) return sendFile(c, file, NO_CACHE);
      }
    }
    if (c.req.path.startsWith("/assets/")) return undefined;
    return isConsoleNavigation(c) ? sendIndex(c, webDist) : undefined;
  }

  return { routes, fallback };
}
