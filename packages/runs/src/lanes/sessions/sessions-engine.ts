import { randomIds } from "@vetted/store";
import type { SessionsEngineOptions, SessionsResources } from "./resources.js";
import {
  getFlowDraft,
  getSession,
  listSessions,
  livePage,
  promoteDraft,
  screenshotSession,
} from "./session-queries.js";
import {
  finishSession,
  loadStorageState,
  recoverInterrupted,
  startSession,
  storageStateOrUndefined,
} from "./session-verbs.js";
import { releaseSpare, warmUp } from "./spare.js";

type Tail<F> = F extends (r: never, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/**
 * Creates the sessions engine: live recording sessions in the browser host (start, get, list, finish),
 * their flow drafts and promotion to flows, screenshots of the live page, and the saved storage states
 * runs bind to (`loadStorageState`, the run engine's session-state port).
 */
export function createSessionsEngine(options: SessionsEngineOptions) {
  const clock = options.clock;
  const newId = options.ids ?? randomIds;
  const r: SessionsResources = {
    db: options.db,
    browser: options.browser,
    dataDir: options.dataDir,
    createFlow: options.createFlow,
    now: clock === undefined ? () => Date.now() : () => clock.now(),
    newId,
    owner: newId("sso"),
    navigationTimeoutMs: options.navigationTimeoutMs ?? 15_000,
    live: new Map(),
    onError: options.onError ?? (() => undefined),
    warmSpare: options.warmSpare ?? true,
    spare: undefined,
    closed: false,
  };
  const bind =
    <F extends (res: SessionsResources, ...rest: never[]) => unknown>(verb: F) =>
    (...rest: Parameters<Tail<F>>) =>
      verb(r, ...(rest as never[])) as ReturnType<F>;
  return {
    startSession: bind(startSession),
    getSession: bind(getSession),
    listSessions: bind(listSessions),
    finishSession: bind(finishSession),
    getFlowDraft: bind(getFlowDraft),
    promoteDraft: bind(promoteDraft),
    screenshot: bind(screenshotSession),
    livePage: bind(livePage),
    loadStorageState: bind(loadStorageState),
    /** The run engine's `sessionStates` port: runs with `session_id` start from the session's storage state. */
    sessionStates: { load: bind(storageStateOrUndefined) },
    /** Marks sessions a previous process left active as failed (their contexts died with it). */
    recoverInterrupted: bind(recoverInterrupted),
    /** Opens the next session's context ahead (the browser launches if it has not yet) and waits for it. */
    warmUp: () => warmUp(r),
    /** Closes every live session's context without saving it (they end `failed`). */
    close: async () => {
      r.closed = true;
      await releaseSpare(r);
      const all = [...r.live.values()];
      await Promise.all(all.map((l) => l.lease.release()));
    },
  };
}

/** The sessions engine. */
export type SessionsEngine = ReturnType<typeof createSessionsEngine>;
export type { SessionsEngineOptions } from "./resources.js";
