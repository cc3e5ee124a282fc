import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** The console: `vite` (dev, `/api` proxied to the server on 127.0.0.1:8787) and `vite build` into `dist/`. */
export default defineConfig({
  plugins: [react()],
  // Workspace packages from their TypeScript sources (no build of them needed first).
  resolve: { conditions: ["@vetted/source", "module", "browser", "development|production"] },
  server: {
    host: "127.0.0.1",
    port: 5173,
    proxy: { "/api": { target: process.env.VETTED_API_URL ?? "http://127.0.0.1:8787", changeOrigin: false } },
  },
  build: { outDir: "dist", assetsDir: "assets", sourcemap: false, target: "es2022" },
});
