import { defineConfig } from "@playwright/test";
import { chromiumPath } from "./e2e/harness.js";

/**
 * End-to-end tests in Debian's Chromium (never a downloaded browser) against a real server child process
 * (one per worker, see e2e/harness.ts). `pnpm --filter @vetted/web test`.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.e2e.ts",
  globalSetup: "./e2e/global-setup.ts",
  outputDir: "test-results/artifacts",
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // One retry on a shared 2-core machine; a test that passes only on its retry is listed as flaky, with
  // its first error, in the run's summary (and `.ci/failures.mjs` prints it at the end of a CI run).
  retries: 1,
  reporter: [["list"], ["json", { outputFile: ".vitest/e2e.json" }]],
  use: {
    browserName: "chromium",
    launchOptions: { executablePath: chromiumPath(), args: ["--no-sandbox"] },
    trace: "off",
    screenshot: "only-on-failure",
  },
});
