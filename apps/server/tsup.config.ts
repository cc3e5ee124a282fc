import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineConfig } from "tsup";

/**
 * The API reference page's one asset: Scalar's self-contained browser bundle, copied into `dist/docs/` at
 * build time, so a production install serves it without the package (and its dependency tree).
 */
function copyDocsBundle(): void {
  const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  mkdirSync("dist/docs", { recursive: true });
  copyFileSync(join(dirname(entry), "browser", "standalone.js"), join("dist", "docs", "standalone.js"));
}

export default defineConfig({
  entry: ["src/main.ts"],
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20",
  onSuccess: async () => copyDocsBundle(),
});
