import type { Clock, IdGenerator } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { BrowserHost, BrowserLease } from "../../core/browser/host-api.js";
import type { Flow, FlowInput } from "../../domain/flow.js";
import type { Recorder } from "./recorder.js";

/** What {@link createSessionsEngine} is built from. */
export interface SessionsEngineOptions {
  db: LibSQLDatabase;
  /** The browser host sessions open their contexts in. */
  browser: BrowserHost;
  /** Storage states, HARs, screenshots and events are written under `<dataDir>/sessions/<id>/`. */
  dataDir: string;
  /** Stores a promoted draft as a flow (the run engine's `createFlow`). */
  createFlow(input: FlowInput): Promise<Flow>;
  clock?: Clock;
  ids?: IdGenerator;
  /** How long `start_url` may take to load (default 15 000 ms). */
  navigationTimeoutMs?: number;
  /**
   * Keep one recording context open ahead for the next session once sessions are used (default true), so
   * a start from a warm browser only navigates. It takes only a context free at that moment, and gives it
   * up as soon as another acquire would wait for one (or the session idle timeout closes it).
   */
  warmSpare?: boolean;
  /** Errors of background work (a lost context), logged by the host. */
  onError?(message: string, err: unknown): void;
}

/** A session live in this process: its browser lease and recorder. */
export interface LiveSession {
  lease: BrowserLease;
  recorder: Recorder;
  /** Set while `finish` saves the session (a lease ending then is expected). */
  finishing: Promise<unknown> | undefined;
}

/** What every sessions verb works over. */
export interface SessionsResources {
  db: LibSQLDatabase;
  browser: BrowserHost;
  dataDir: string;
  createFlow(input: FlowInput): Promise<Flow>;
  now(): number;
  newId: IdGenerator;
  /** This engine's id: the `owner` of the sessions it holds live. */
  owner: string;
  navigationTimeoutMs: number;
  live: Map<string, LiveSession>;
  onError(message: string, err: unknown): void;
  warmSpare: boolean;
  /** The context opened ahead for the next session (see `spare.ts`). */
  spare: Promise<import("./spare.js").Prepared> | undefined;
  closed: boolean;
}
