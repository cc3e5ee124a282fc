import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import type { AppEnv } from "../deps.js";
import { fileUnder, sendFile } from "./console.js";

/** The one asset of the reference page: Scalar's self-contained browser bundle. */
const BUNDLE = "standalone.js";

/**
 * Where the bundle is: beside the built server (`dist/docs/`, copied there by the build, so a production
 * install needs no `@scalar/api-reference`), else inside that package (a development checkout running
 * the sources). Undefined when neither has it: the page then says so instead of failing to start.
 */
export function docsBundleDir(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  const built = join(from, "docs");
  if (existsSync(join(built, BUNDLE))) return built;
  try {
    const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
    const dir = join(dirname(entry), "browser");
    return existsSync(join(dir, BUNDLE)) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Where the docs' own start-up script is served (under the open asset prefix, beside Scalar's bundle). */
export const DOCS_INIT_PATH = "/api/docs/assets/vetted-docs.js";

/** The sessionStorage key under which the console keeps the API token (apps/web/src/api/client.ts). */
export const CONSOLE_TOKEN_KEY = "vetted.api-token";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vetted API reference</title>
</head>
<body>
<div id="api-reference-app"></div>
<script src="/api/docs/assets/${BUNDLE}"></script>
<script src="${DOCS_INIT_PATH}"></script>
</body>
</html>`;

const MISSING = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vetted API reference</title></head>
<body><p>The API reference bundle is missing from this install. Build the server (<code>pnpm build</code>),
or read the OpenAPI document at <a href="/api/openapi.json">/api/openapi.json</a>.</p></body></html>`;

/**
 * Starts Scalar on the page (an external script, since the CSP allows no inline one). The OpenAPI document is
 * public; "Try it" requests carry the console's token from this tab's sessionStorage when there is one (a
 * person signed in to the console is not asked again), else the person types it into Scalar's auth box.
 */
const INIT_SCRIPT = `(function () {
  var token = null;
  try { token = window.sessionStorage.getItem(${JSON.stringify(CONSOLE_TOKEN_KEY)}); } catch (e) { token = null; }
  var authentication = { preferredSecurityScheme: "bearer" };
  if (token) authentication.securitySchemes = { bearer: { token: token } };
  window.Scalar.createApiReference("#api-reference-app", {
    url: "/api/openapi.json",
    withDefaultFonts: false,
    hideClientButton: false,
    authentication: authentication
  });
})();
`;

/**
 * `GET /api/docs`: the Scalar API reference, its bundle served from the npm package (no CDN at run time;
 * no inline script, so it works under `default-src 'self'`). Plain Hono: outside the OpenAPI document.
 * The page and its assets hold no data, so they stay open when an API token is set (see middleware/auth.ts).
 */
export function createDocsRoutes() {
  const dir = docsBundleDir();
  return new Hono<AppEnv>()
    .get("/api/docs", (c) =>
      dir === undefined
        ? c.html(MISSING, 503, { "cache-control": "no-cache" })
        : c.html(PAGE, 200, { "cache-control": "no-cache" }),
    )
    .get(DOCS_INIT_PATH, (c) =>
      c.body(INIT_SCRIPT, 200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-cache",
      }),
    )
    .get(`/api/docs/assets/${BUNDLE}`, async (c, next) => {
      const file = dir === undefined ? undefined : await fileUnder(dir, BUNDLE);
      if (file === undefined) return next();
      return sendFile(c, file, "public, max-age=3600");
    });
}
