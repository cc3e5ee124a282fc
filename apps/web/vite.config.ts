import react from "@vitejs/plugin-react";
import { defineConfig, type IndexHtmlTransformContext, type Plugin } from "vite";

const EARLY_SOURCE = "/src/early.ts";
/** The review page's lazy chunk, which the early entry preloads on a review page's address. */
const REVIEW_CHUNK_SOURCE = "/src/features/fileorg/ReviewRoute.tsx";

type Bundle = NonNullable<IndexHtmlTransformContext["bundle"]>;

/** The chunk built from `source`, and every chunk it statically imports but the main entry. */
function chunkFiles(bundle: Bundle, source: string): string[] {
  const chunks = Object.values(bundle).flatMap((c) => (c.type === "chunk" ? [c] : []));
  const start = chunks.find((c) => c.facadeModuleId?.endsWith(source) === true);
  if (start === undefined) throw new Error(`no chunk of ${source} in the build`);
  const files = new Set<string>();
  const visit = (fileName: string) => {
    const chunk = chunks.find((c) => c.fileName === fileName);
    if (chunk === undefined || chunk.isEntry || files.has(fileName)) return;
    files.add(fileName);
    for (const dep of chunk.imports) visit(dep);
  };
  visit(start.fileName);
  return [...files].map((f) => `/${f}`);
}

/**
 * The early entry (`src/early.ts`, its own small chunk) as the page's first script: module scripts run in
 * document order, so it runs before the main bundle, and a review page's first rows are asked for while the
 * main bundle is still starting. Its `data-review-chunks` names the review page's chunks, which it preloads
 * on a review page (their download overlaps the main bundle's start instead of following it).
 */
function earlyEntry(): Plugin {
  return {
    name: "vetted-early-entry",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        const attrs: Record<string, string | boolean> = { type: "module", crossorigin: true };
        if (ctx.bundle === undefined) attrs.src = EARLY_SOURCE;
        else {
          const early = Object.values(ctx.bundle).find(
            (c) => c.type === "chunk" && c.isEntry && c.name === "early",
          );
          if (early === undefined) throw new Error("no early chunk in the build");
          attrs.src = `/${early.fileName}`;
          attrs["data-review-chunks"] = chunkFiles(ctx.bundle, REVIEW_CHUNK_SOURCE).join(" ");
        }
        return [{ tag: "script", attrs, injectTo: "head-prepend" }];
      },
    },
  };
}

/** The console: `vite` (dev, `/api` proxied to the server on 127.0.0.1:8787) and `vite build` into `dist/`. */
export default defineConfig({
  plugins: [react(), earlyEntry()],
  // Workspace packages from their TypeScript sources (no build of them needed first).
  resolve: { conditions: ["@vetted/source", "module", "browser", "development|production"] },
  server: {
    host: "127.0.0.1",
    port: 5173,
    proxy: { "/api": { target: process.env.VETTED_API_URL ?? "http://127.0.0.1:8787", changeOrigin: false } },
  },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    sourcemap: false,
    target: "es2022",
    rollupOptions: { input: { index: "index.html", early: "src/early.ts" } },
  },
});
