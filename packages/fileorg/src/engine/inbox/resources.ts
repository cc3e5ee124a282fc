import type { FSWatcher, watch } from "chokidar";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { InboxFile } from "../../domain/inbox-batch.js";
import type { FileorgError } from "../../errors.js";
import { createPathGuard, defaultAllowedRoots, type PathGuard } from "../path-guard.js";
import type { PreferencesEngine, Stored } from "../preferences/index.js";
import type { Clock } from "../review-ids.js";

/** A watch source as stored. */
export type WatchSource = Stored<"watch-sources">;

/** Starts an analyze job over exactly these files of a watch source; answers the new job. */
export type AnalyzeFiles<J extends { job_id: string }> = (
  source: WatchSource,
  files: readonly InboxFile[],
  actor?: { actor: string; requestId?: string | undefined },
) => Promise<J>;

/** What the inbox engine is built from. */
export interface InboxEngineOptions<J extends { job_id: string }> {
  db: LibSQLDatabase;
  preferences: Pick<PreferencesEngine, "list" | "get">;
  clock?: Clock;
  /** Starts analyze jobs for `analyze`; without it `analyze` is unavailable. */
  analyzeFiles?: AnalyzeFiles<J>;
  /** Poll instead of filesystem events from the start (events fall back to polling on their own on error). */
  usePolling?: boolean;
  /** Polling interval in ms. Default 1000. */
  pollIntervalMs?: number;
  /** How often watch sources are re-read for changes while started, in ms. Default 5000. */
  refreshIntervalMs?: number;
  /** Creates the watchers (default: chokidar's `watch`); tests wrap it to simulate the OS refusing watches. */
  watch?: typeof watch;
  /**
   * The allowed roots a watched folder must lie in, checked when its watcher starts and before each scan (a
   * source that resolves outside is skipped, never listed). Default: the home and system temp directories.
   */
  guard?: PathGuard;
  /**
   * The autopilot's apply step (see `autoApplySafeRows`): called with each analyze job the autopilot starts
   * for a source with `auto_apply: "auto_safe"`. Without it the autopilot is off for every source.
   */
  autoApply?: (source: WatchSource, jobId: string) => Promise<unknown>;
  /**
   * Race-simulation hooks for tests: `beforeClaim` runs between computing a batch and claiming its files
   * (the window two autopilot passes — of two processes — could both see the same batch in).
   */
  raceHooks?: { beforeClaim?: (watchSourceId: string) => Promise<void> };
  /** Called when a watcher reports an error or falls back to polling. */
  onWarning?: (message: string, details: Record<string, unknown>) => void;
}

/** A file as last observed. */
export interface Observed {
  size: number;
  mtime: number;
  /** When this (size, mtime) was first observed. */
  since: number;
}

/** A watch source being watched. */
export interface Watched {
  key: string;
  source: WatchSource;
  /** The watched folder's real path, checked inside the allowed roots (`undefined` while refused). */
  root: string | undefined;
  /** Why the source is skipped (it resolves outside the roots, or is gone). */
  refused: FileorgError | undefined;
  watcher: FSWatcher | undefined;
  polling: boolean;
  files: Map<string, Observed>;
  ready: Promise<void>;
}

/** What every inbox module shares: options, ports, the watched sources and the engine's run state. */
export interface InboxResources<J extends { job_id: string }> {
  options: InboxEngineOptions<J>;
  clock: Clock;
  warn: (message: string, details: Record<string, unknown>) => void;
  guard: PathGuard;
  watched: Map<string, Watched>;
  state: {
    started: boolean;
    refreshTimer: NodeJS.Timeout | undefined;
    refreshing: Promise<void> | undefined;
    /** Sources an autopilot pass is taking a batch of right now. */
    autopilot: Set<string>;
  };
}

/** The shared resources of one inbox engine. */
export function createInboxResources<J extends { job_id: string }>(
  options: InboxEngineOptions<J>,
): InboxResources<J> {
  return {
    options,
    clock: options.clock ?? Date.now,
    warn: options.onWarning ?? (() => {}),
    guard: options.guard ?? createPathGuard(defaultAllowedRoots()),
    watched: new Map(),
    state: { started: false, refreshTimer: undefined, refreshing: undefined, autopilot: new Set() },
  };
}

/** What makes a watcher stale when it changes: the folder, recursion and ignore patterns. */
export function sourceKey(s: WatchSource): string {
  return JSON.stringify([s.path, s.recursive ?? true, s.ignore ?? []]);
}
