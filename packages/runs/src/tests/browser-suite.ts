import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { findChromium } from "../core/browser/find-chromium.js";
import { createBrowserHost } from "../core/browser/host.js";
import type { BrowserHost } from "../core/browser/host-api.js";
import type { RunsEngineOptions } from "../platform.js";
import { startTestSite, type TestSite, type TestSiteOptions } from "../testing.js";
import { openTestEngine } from "./harness.js";

/** What a browser test file shares: the local test site, one warm browser, engines closed after each test. */
export interface BrowserSuite {
  readonly site: TestSite;
  readonly host: BrowserHost;
  /** An engine on a new file database and data folder, driving the suite's browser, started. */
  engineWith(
    options?: Partial<RunsEngineOptions>,
  ): Promise<Awaited<ReturnType<typeof openTestEngine>> & { dataDir: string }>;
  /** Runs `close` after the current test (last registered, first closed). */
  onClose(close: () => Promise<void>): void;
}

function ready<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the suite's ${what} is only there inside a test`);
  return value;
}

/**
 * Registers the hooks of a browser test file (start the test site and a warm Chromium before all tests,
 * close each test's engines after it, close both after all) and answers the shared handles.
 */
export function useBrowserSuite(prefix = "vetted-browser-", siteOptions: TestSiteOptions = {}): BrowserSuite {
  let site: TestSite | undefined;
  let host: BrowserHost | undefined;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    site = await startTestSite(siteOptions);
    host = createBrowserHost({ executablePath: findChromium(process.env) });
    await host.warm();
  });
  afterAll(async () => {
    await host?.close();
    await site?.close();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return {
    get site() {
      return ready(site, "test site");
    },
    get host() {
      return ready(host, "browser");
    },
    async engineWith(options = {}) {
      const s = ready(site, "test site");
      const dataDir = mkdtempSync(join(tmpdir(), prefix));
      const t = await openTestEngine({
        browser: ready(host, "browser"),
        dataDir,
        protectedDomains: [s.payHost],
        outbound: { allow: ["127.0.0.1", s.payHost] },
        ...options,
      });
      t.engine.start();
      closers.push(t.close);
      return { ...t, dataDir };
    },
    onClose(close) {
      closers.push(close);
    },
  };
}
