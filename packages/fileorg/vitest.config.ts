import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "fileorg",
    include: ["src/**/*.test.ts"],
    environment: "node",
    // Real files, processes and databases on a shared 2-core machine: generous per-test limits.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
