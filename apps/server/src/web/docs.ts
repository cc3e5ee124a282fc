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

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vetted API reference</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="/api/openapi.json" data-configuration='{"withDefaultFonts":false,"hideClientButton":false}'></script>
<script src="/api/docs/assets/standalone.js"></script>
</body>
</html>`;

/**
 * `GET /api/docs`: the Scalar API reference, its bundle served from the npm package (no CDN at run time;
 * no inline script, so it works under `default-src 'self'`). Plain Hono: outside the OpenAPI document.
 */
export function createDocsRoutes() {
  const dir = scalarBrowserDir();
  return new Hono<AppEnv>()
    .get("/api/docs", (c) => c.html(PAGE, 200, { "cache-control": "no-cache" }))
    .get("/api/docs/assets/*", async (c, next) => {
      const file = await fileUnder(dir, c.req.path.slice("/api/docs/assets/".length));
      if (file === undefined || !/\.(js|css|map|woff2?|svg)$/.test(file)) return next();
      return sendFile(c, file, "public, max-age=3600");
    });
}
