import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobKind } from "../domain/job.js";
import type { AnalyzeRuleSet } from "../domain/pack-rules.js";
import type { RowAdjuster } from "./analyze/rows.js";
import { GROUP_SIZE, type MoveOptions } from "./apply/group.js";
import type { EngineContext } from "./context.js";
import type { Database } from "./db.js";
import { createId } from "./ids.js";
import { createJournalSigner, type JournalSigner } from "./journal.js";
import { JOURNAL_KEY_FILE, loadJournalKey } from "./journal-key.js";
import { createLeaseOwner } from "./lease.js";
import type { RowsEdited } from "./manifest/index.js";
import { createPathGuard, defaultAllowedRoots, type PathGuard } from "./path-guard.js";
import { EventHub, type JobRecord } from "./records.js";
import type { JobRun } from "./run.js";
import { trashOptionsOf } from "./trash.js";

/** What the engine is built from. */
export interface FileorgEngineOptions {
  db: Database;
  /** Milliseconds since the epoch (default `Date.now`). */
  clock?: () => number;
  /** Id factory (default: prefixed, time-ordered random ids). */
  ids?: (prefix: string) => string;
  /** Directories every path must resolve inside (default: home and the system temp directory). */
  allowedRoots?: readonly string[];
  /**
   * Rows built concurrently during analyze (default 8); files are read and hashed on
   * min(concurrency, cores − 1, 4) file threads (at least one).
   */
  concurrency?: number;
  /**
   * The key that signs journal records (HMAC-SHA256). Default: `loadJournalKey` over `dataDir` (from
   * `VETTED_JOURNAL_KEY`, or generated once into the data directory with mode 0600).
   */
  journalKey?: Uint8Array;
  /**
   * Where the journal key file lives when `journalKey` is not given (default: the system temp directory).
   * When given, the whole directory is never touched (as if listed in `protectedPaths`).
   */
  dataDir?: string;
  /**
   * Files and folders the engine never touches, whatever the roots and options (a folder covers everything
   * in it): analyze lists a protected entry as a blocked `PROTECTED_PATH` row and never descends into it,
   * apply refuses to move a row from or to one, and a source, output or edited target inside one is
   * PATH_PROTECTED. The server passes its data directory, database files and key files. The journal key
   * file the engine reads or generates is always protected.
   */
  protectedPaths?: readonly string[];
  /** Environment read for `VETTED_JOURNAL_KEY` (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Always move by copy + fsync + verify + unlink, as across devices (default false: link, then unlink). */
  forceCopy?: boolean;
  /** Rows per journal group commit during apply and rollback (default 500). */
  groupSize?: number;
  /**
   * The home trash `trash` rows go to when on its device (default `$XDG_DATA_HOME/Trash` from `env`, else
   * `~/.local/share/Trash`); files on other devices go to their top directory's `.Trash-$uid`.
   */
  trashDir?: string;
  /**
   * How long a running job stays leased to this engine without a heartbeat (default 30 000 ms; renewed every
   * third of it). Several processes may share one database: each takes over only jobs whose lease expired
   * (or whose owner is known to be gone) and never runs a job another live process owns.
   */
  leaseMs?: number;
  /**
   * What analyze and the manifest ask the layers above the core (review, preferences), fixed at
   * construction; `createFileorg` passes review's. Without them analyze applies no saved rule or learned
   * suggestion and edits are not learned from.
   */
  hooks?: FileorgHooks;
}

/** The layers above the core, as the core calls them. */
export interface FileorgHooks {
  /** How new analyze rows are adjusted before bucketing (review's learned suggestions). */
  analyzeAdjuster?: ((job: JobRecord) => Promise<RowAdjuster | undefined>) | undefined;
  /** The rules analyze applies to each new row: the strategy pack's, then the saved review rules. */
  analyzeRules?: ((job: JobRecord) => Promise<AnalyzeRuleSet | undefined>) | undefined;
  /** Extra parameters of new analyze jobs (the active strategy pack's threshold, preference defaults). */
  analyzeParams?: (() => Promise<Record<string, unknown>>) | undefined;
  /** Told of every committed patch batch, with each row before and after. */
  onRowsEdited?: ((event: RowsEdited) => Promise<void> | void) | undefined;
}

/** A job body: runs a claimed job and returns its result. */
export type JobBody = (run: JobRun) => Promise<Record<string, unknown>>;

/** The hooks the engine calls: the layers above it (given at construction) and a test's race simulation. */
export interface EngineHooks extends Omit<FileorgHooks, "onRowsEdited"> {
  /**
   * Race simulation: awaited between reading a queued job and the compare-and-set that claims it, so a test
   * can make two engines read the same job before either claims it.
   */
  beforeClaim?: ((jobId: string) => Promise<void>) | undefined;
}

/** The one resources object every concern module of the engine works over. */
export interface FileorgResources {
  ctx: EngineContext;
  signer: JournalSigner;
  moveOptions: MoveOptions;
  lease: { owner: string; leaseMs: number };
  concurrency: number;
  hooks: EngineHooks;
  /** Job bodies by kind. */
  bodies: Map<JobKind, JobBody>;
  /** Wakes the runner (set by the runner; a no-op until it exists). */
  wake: () => void;
}

/** The never-touch set of an engine: the given paths, the data directory, and the journal key file it uses. */
function protectedPathsOf(options: FileorgEngineOptions): string[] {
  const out = [...(options.protectedPaths ?? [])];
  if (options.dataDir !== undefined) out.push(options.dataDir);
  if (options.journalKey === undefined) out.push(join(options.dataDir ?? tmpdir(), JOURNAL_KEY_FILE));
  return out;
}

/** The path guard of an engine built from `options`: its allowed roots and never-touch set. */
export function createEngineGuard(options: FileorgEngineOptions): PathGuard {
  return createPathGuard(options.allowedRoots ?? defaultAllowedRoots(), protectedPathsOf(options));
}

/**
 * Builds the shared resources of one engine from its options; `guard` when the composition built it first
 * (`createFileorg`: the preferences share it), else from the options.
 */
export function createFileorgResources(
  options: FileorgEngineOptions,
  guard: PathGuard = createEngineGuard(options),
): FileorgResources {
  const { onRowsEdited, ...hooks } = options.hooks ?? {};
  const hub = new EventHub();
  const ctx: EngineContext = {
    db: options.db,
    clock: options.clock ?? Date.now,
    ids: options.ids ?? createId,
    hub,
    guard,
    publish(messages) {
      for (const m of messages) hub.publish(m);
    },
    rowsEditedListeners: onRowsEdited === undefined ? [] : [onRowsEdited],
  };
  const signer = createJournalSigner(
    options.journalKey ??
      loadJournalKey({ env: options.env ?? process.env, dataDir: options.dataDir ?? tmpdir() }),
  );
  return {
    ctx,
    signer,
    moveOptions: {
      signer,
      forceCopy: options.forceCopy ?? false,
      groupSize: options.groupSize ?? GROUP_SIZE,
      trash: trashOptionsOf(options.trashDir, options.env ?? process.env),
    },
    lease: { owner: createLeaseOwner(), leaseMs: options.leaseMs ?? 30_000 },
    concurrency: options.concurrency ?? 8,
    hooks,
    bodies: new Map(),
    wake: () => undefined,
  };
}
