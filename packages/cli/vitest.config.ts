import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "cli",
    include: ["src/**/*.test.ts"],
    environment: "node",
    // Spawned processes, real folders and databases (and a real server) on a shared 2-core machine.
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
