import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineProject } from "vitest/config";

/** Test files that start the server as a child process (they import its launcher, directly or via the fuzzer). */
function processTests(dir = "src"): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...processTests(path));
    else if (
      entry.name.endsWith(".test.ts") &&
      /tests\/server-process\.js|fuzz-server\.js/.test(readFileSync(path, "utf8"))
    )
      found.push(path);
  }
  return found;
}

const PROCESS_TESTS = processTests();

/**
 * Two projects, so CI can start the in-process tests at once and the child-process ones after the build
 * they start from (turbo.json): `server` (`pnpm test`) and `server-processes` (`pnpm test:processes`).
 */
export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    environment: "node",
    // Bundles fileorg's file-thread entry once per run, so the in-process engines' analyze and apply threads
    // start without registering tsx (see the file).
    globalSetup: ["../../packages/fileorg/src/tests/reader-bundle-setup.ts"],
    // Test files share one worker's module graph instead of re-importing the engines per file (about 2 s
    // of CPU per file on a 2-core machine); no test relies on module state, mocks or a changed process.env.
    isolate: false,
    // Real files, databases and server processes on a shared 2-core machine, next to another package's
    // suite: a limit for a hung test, not a speed check (benches measure speed).
    testTimeout: 60_000,
    // A suite's beforeAll may start a server child process (its own start-up limit is 60 s).
    hookTimeout: 70_000,
    projects: [
      { extends: true, test: { name: "server", include: ["src/**/*.test.ts"], exclude: PROCESS_TESTS } },
      { extends: true, test: { name: "server-processes", include: PROCESS_TESTS } },
    ],
  },
});
