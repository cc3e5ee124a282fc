import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "server",
    include: ["src/**/*.test.ts"],
    environment: "node",
    // Test files share one worker's module graph instead of re-importing the engines per file (about 2 s
    // of CPU per file on a 2-core machine); no test relies on module state, mocks or a changed process.env.
    isolate: false,
    // Tests that start real server processes need headroom when every package's suite runs at once on 2 cores.
    testTimeout: 20_000,
    // A suite's beforeAll may start a server child process (its own start-up limit is 60 s).
    hookTimeout: 70_000,
  },
});
