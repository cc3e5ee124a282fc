import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import type { AppEnv } from "../app.js";
import { fileUnder, sendFile } from "./console.js";

/** The directory of Scalar's standalone browser bundle inside the installed `@scalar/api-reference`. */
function scalarBrowserDir(): string {
  const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return join(dirname(entry), "browser");
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
<script src="/api/docs/assets/standalone.js"></script>
<script src="${DOCS_INIT_PATH}"></script>
</body>
</html>`;

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
  const dir = scalarBrowserDir();
  return new Hono<AppEnv>()
    .get("/api/docs", (c) => c.html(PAGE, 200, { "cache-control": "no-cache" }))
    .get(DOCS_INIT_PATH, (c) =>
      c.body(INIT_SCRIPT, 200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-cache",
      }),
    )
    .get("/api/docs/assets/*", async (c, next) => {
      const file = await fileUnder(dir, c.req.path.slice("/api/docs/assets/".length));
      if (file === undefined || !/\.(js|css|map|woff2?|svg)$/.test(file)) return next();
      return sendFile(c, file, "public, max-age=3600");
    });
}
