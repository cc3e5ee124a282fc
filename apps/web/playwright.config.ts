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
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    launchOptions: { executablePath: chromiumPath(), args: ["--no-sandbox"] },
    trace: "off",
    screenshot: "only-on-failure",
  },
});
