import type { Clock, IdGenerator } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { BrowserContext, Page } from "playwright-core";
import type { BrowserHost, BrowserLease } from "../../core/browser/host-api.js";
import type { OutboundGuard } from "../../core/browser/network-guard.js";
import type { SecretBox } from "../../kernel/secret-box.js";
import type { Planner } from "./planner.js";

/** The recording sessions a computer-use session may act in (the sessions engine's `livePage`). */
export interface LiveSessions {
  livePage(sessionId: string): Promise<{ page: Page; context: BrowserContext; outbound: OutboundGuard }>;
}

/** What {@link createComputerUseEngine} is built from. */
export interface ComputerUseEngineOptions {
  db: LibSQLDatabase;
  /** Where a computer-use session without `session_id` opens its own page. */
  browser: BrowserHost;
  /** Recording sessions, for computer-use sessions created with `session_id`. */
  sessions: LiveSessions;
  /** Screenshots are written under `<dataDir>/computer-use/<id>/`. */
  dataDir: string;
  /** Protected payment provider domains: any action there is `critical`. */
  protectedDomains: readonly string[];
  /**
   * The runs secrets key (see `loadSecretsKey`): text typed into password and card fields is kept sealed
   * with it. Without it, a key of this engine alone: such an action previewed before a restart must be
   * previewed again.
   */
  secretsKey?: Buffer;
  /** The planners by kind; `local` is always there, `openai` only when configured. */
  planners?: { openai?: Planner | undefined };
  clock?: Clock;
  ids?: IdGenerator;
  /** How long one action may take in the page (default 15 000 ms). */
  actionTimeoutMs?: number;
  /** After this long, an `executing` claim whose process never finished it counts as interrupted (default 120 000 ms). */
  staleClaimMs?: number;
  /** How often a caller waiting for another's execution looks again (default 25 ms). */
  waitPollMs?: number;
  /**
   * Race-simulation hooks for tests: `beforeClaim` runs after an execute read the action (and judged the
   * page again) and right before it claims it, so a test can hold concurrent executes at the racy point.
   */
  raceHooks?: { beforeClaim?(actionId: string): Promise<void> };
}

/** What every computer-use verb works over. */
export interface ComputerUseResources {
  db: LibSQLDatabase;
  browser: BrowserHost;
  sessions: LiveSessions;
  dataDir: string;
  protectedDomains: readonly string[];
  /** Seals typed secrets (and instructions holding one) at rest. */
  box: SecretBox;
  planners: { local: Planner; openai: Planner | undefined };
  now(): number;
  newId: IdGenerator;
  /** This engine's claim token prefix. */
  owner: string;
  actionTimeoutMs: number;
  staleClaimMs: number;
  waitPollMs: number;
  raceHooks: { beforeClaim?(actionId: string): Promise<void> };
  /** The pages computer-use sessions opened for themselves, by id. */
  ownPages: Map<string, Promise<BrowserLease>>;
  /** The tail of each session's execution chain: executions of one session run one at a time. */
  chains: Map<string, Promise<unknown>>;
}
