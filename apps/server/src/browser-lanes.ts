import type { BrowserHost, Flow, FlowInput, SessionStates } from "@vetted/runs";
import {
  type ComputerUseEngine,
  type ComputerUseEngineOptions,
  createComputerUseEngine,
  createOpenAiPlanner,
} from "@vetted/runs/computer-use";
import { createSessionsEngine, type SessionsEngine } from "@vetted/runs/sessions";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/** The OpenAI-compatible planner's settings (`VETTED_CU_PLANNER_URL`, `_MODEL`, `_API_KEY`). */
export interface CuPlannerConfig {
  url: string | undefined;
  model: string | undefined;
  apiKey: string | undefined;
}

/** What the browser lanes are built from. */
export interface BrowserLanesOptions {
  db: LibSQLDatabase;
  browser: BrowserHost;
  dataDir: string;
  protectedDomains: readonly string[];
  /** The installation's secrets key: computer use seals typed passwords and card numbers with it. */
  secretsKey: Buffer;
  /** Stores a promoted draft (the run engine's `createFlow`; called only after start-up). */
  createFlow(input: FlowInput): Promise<Flow>;
  planner?: CuPlannerConfig;
  /** Race-simulation hooks of the computer-use engine (tests only). */
  raceHooks?: ComputerUseEngineOptions["raceHooks"];
  onError?(message: string, err: unknown): void;
}

/** Recording sessions and computer use over one browser host. */
export interface BrowserLanes {
  sessions: SessionsEngine;
  computerUse: ComputerUseEngine;
  /** Closes the lanes' live contexts (before the browser host closes). */
  close(): Promise<void>;
}

/** Builds the sessions and computer-use engines; the OpenAI-compatible planner only when URL and model are set. */
export function createBrowserLanes(options: BrowserLanesOptions): BrowserLanes {
  const sessions = createSessionsEngine({
    db: options.db,
    browser: options.browser,
    dataDir: options.dataDir,
    createFlow: options.createFlow,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
  const p = options.planner;
  const openai =
    p?.url !== undefined && p.model !== undefined
      ? createOpenAiPlanner({ url: p.url, model: p.model, apiKey: p.apiKey })
      : undefined;
  const computerUse = createComputerUseEngine({
    db: options.db,
    browser: options.browser,
    sessions,
    dataDir: options.dataDir,
    protectedDomains: options.protectedDomains,
    secretsKey: options.secretsKey,
    planners: { openai },
    ...(options.raceHooks === undefined ? {} : { raceHooks: options.raceHooks }),
  });
  return {
    sessions,
    computerUse,
    close: async () => {
      await computerUse.close();
      await sessions.close();
    },
  };
}

/**
 * The run engine's `sessionStates` port, bound to the sessions engine once it exists (the run engine is
 * built first; the sessions engine promotes drafts through it).
 */
export function lateSessionStates(): SessionStates & { bind(sessions: SessionsEngine): void } {
  let bound: SessionsEngine | undefined;
  return {
    load: async (sessionId) => bound?.sessionStates.load(sessionId),
    bind: (sessions) => {
      bound = sessions;
    },
  };
}
