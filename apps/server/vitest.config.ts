import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "server",
    include: ["src/**/*.test.ts"],
    environment: "node",
    // Real server processes, real watchers and real jobs: generous on a loaded machine.
    testTimeout: 30_000,
  },
});
