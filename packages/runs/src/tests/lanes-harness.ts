import { findChromium } from "../core/browser/find-chromium.js";
import { createBrowserHost } from "../core/browser/host.js";
import type { BrowserHost, BrowserHostOptions } from "../core/browser/host-api.js";
import { type ComputerUseEngine, createComputerUseEngine } from "../lanes/computer-use/cu-engine.js";
import type { Planner } from "../lanes/computer-use/planner.js";
import {
  createSessionsEngine,
  type SessionsEngine,
  type SessionsEngineOptions,
} from "../lanes/sessions/sessions-engine.js";
import type { RunsEngineOptions } from "../platform.js";
import { startTestSite, type TestSite, type TestSiteOptions } from "../testing.js";
import { openTestEngine, TEST_SECRETS_KEY } from "./harness.js";

/** What a lanes test may set: the planner, the test site, the browser host, the run and sessions engines. */
export interface LanesOptions {
  openai?: Planner;
  site?: TestSiteOptions;
  host?: Partial<BrowserHostOptions>;
  engine?: Partial<RunsEngineOptions>;
  sessions?: Pick<SessionsEngineOptions, "warmSpare">;
}

/** A migrated test database with a run engine, a real Chromium host, the test site and both lanes over them. */
export async function openLanes(options: LanesOptions = {}) {
  const site: TestSite = await startTestSite(options.site);
  const browser: BrowserHost = createBrowserHost({
    executablePath: findChromium(process.env),
    ...options.host,
  });
  let bound: SessionsEngine | undefined;
  const base = await openTestEngine({
    browser,
    protectedDomains: [site.payHost],
    sessionStates: { load: async (id) => bound?.sessionStates.load(id) },
    ...options.engine,
  });
  const dataDir = base.file.replace(/runs\.db$/, "data");
  const lanes = (): { sessions: SessionsEngine; cu: ComputerUseEngine } => {
    const sessions = createSessionsEngine({
      db: base.db,
      browser,
      dataDir,
      createFlow: base.engine.createFlow,
      ...options.sessions,
    });
    const cu = createComputerUseEngine({
      db: base.db,
      browser,
      sessions,
      dataDir,
      protectedDomains: [site.payHost],
      secretsKey: TEST_SECRETS_KEY,
      planners: { openai: options.openai },
    });
    return { sessions, cu };
  };
  const first = lanes();
  bound = first.sessions;
  base.engine.start();
  return {
    ...base,
    ...first,
    site,
    browser,
    dataDir,
    /** A second pair of engines over the same database and browser (a restarted process, as far as the DB knows). */
    reopen: lanes,
    async close() {
      await first.cu.close();
      await first.sessions.close();
      await browser.close();
      await site.close();
      await base.close();
    },
  };
}

/** The lanes of one test. */
export type Lanes = Awaited<ReturnType<typeof openLanes>>;
