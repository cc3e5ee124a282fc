import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "fileorg",
    include: ["src/**/*.test.ts"],
    environment: "node",
    // Bundles the file threads' entry once per run, so no analyze or apply thread registers tsx (see the file).
    globalSetup: ["src/tests/reader-bundle-setup.ts"],
    // Test files share one worker's module graph instead of re-importing the engines per file (about 2 s
    // of CPU per file on a 2-core machine); no test relies on module state, mocks or a changed process.env.
    isolate: false,
    // Real files, processes and databases on a shared 2-core machine: generous per-test limits.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
