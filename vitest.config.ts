import { defineConfig } from "vitest/config";

/** Root config: one vitest project per workspace package (each has its own vitest.config.ts). */
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*"],
  },
});
