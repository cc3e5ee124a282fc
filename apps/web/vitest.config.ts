import { defineProject } from "vitest/config";

/** Unit tests of the console's pure modules (src, *.test.ts); the browser tests are Playwright's (e2e). */
export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: { name: "web", include: ["src/**/*.test.ts"], environment: "node" },
});
