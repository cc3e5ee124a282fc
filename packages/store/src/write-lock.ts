import { AsyncLocalStorage } from "node:async_hooks";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/** How a writer queues: requests first; background work (embeddings, indexes, deliveries) yields to them. */
export interface WriteOptions {
  /** Wait while any foreground writer is queued (default false: foreground). */
  background?: boolean;
}

/** A waiting background writer is served after at most this many foreground writers in a row. */
const FAIR_SHARE = 16;

/** The options of a background writer: it waits while any request is queued for the writer. */
export const BACKGROUND: Readonly<WriteOptions> = Object.freeze({ background: true });

/**
 * The one writer of a database client: runs `fn` once every earlier holder is done. Foreground writers are
 * served in arrival order before any queued background writer (which is still served after at most 16
 * foreground writers in a row, so a steady stream of requests never starves it); a running writer is never
 * interrupted.
 */
export interface WriteLock {
  <T>(fn: () => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Takes the lock; the returned function releases it (idempotent). */
  acquire(options?: WriteOptions): Promise<() => void>;
  /** Whether the calling async context runs inside this lock's `fn` (work it spawned counts until `fn` ends). */
  holds(): boolean;
  /** Writers waiting for the lock, by lane. */
  waiting(): { foreground: number; background: number };
}

/** A Drizzle transaction handle over a libsql database. */
export type Tx = Parameters<Parameters<LibSQLDatabase["transaction"]>[0]>[0];

/** The lock an async context holds; `held` turns false on release (work it spawned may outlive it). */
interface Hold {
  readonly lock: object;
  held: boolean;
}

/** Every copy of this module in a process shares these, under one global symbol. */
interface Shared {
  readonly locks: WeakMap<object, WriteLock>;
  readonly holding: AsyncLocalStorage<Hold>;
}

const SHARED_KEY = Symbol.for("@vetted/sqlite-write-locks/v2");

function shared(): Shared {
  const holder = globalThis as typeof globalThis & { [SHARED_KEY]?: Shared };
  let value = holder[SHARED_KEY];
  if (value === undefined) {
    value = { locks: new WeakMap(), holding: new AsyncLocalStorage() };
    holder[SHARED_KEY] = value;
  }
  return value;
}

/** A queued writer that may join the transaction of the writer holding the lock (group commit). */
export interface Joinable {
  /** Called instead of a grant when the writer gets the lock itself: it leads a batch, then calls `release`. */
  lead(release: () => void): void;
}

/** How many queued writers may join one transaction, and for how long a batch keeps taking them. */
export interface GroupCommitSettings {
  /** Writers per transaction at most (1: every writer commits alone). */
  maxWriters: number;
  /** A batch takes no more writers once its transaction has been open this long. */
  maxBatchMs: number;
}

/** Group commit is off unless the client says its holder's reads go through the batch (the guarded client). */
const SINGLE: Readonly<GroupCommitSettings> = Object.freeze({ maxWriters: 1, maxBatchMs: 0 });

/** What group commit needs of a lock; not part of the public {@link WriteLock}. */
export interface LockInternals {
  settings: Readonly<GroupCommitSettings>;
  /** Batches led and writers run in them so far (for benches and metrics). */
  readonly stats: { batches: number; writers: number };
  /** Queues a writer that joins a running batch when it is next in line, or leads one when it gets the lock. */
  queueJoinable(writer: Joinable, options?: WriteOptions): void;
  /** The next writer in line (lane order and fair share kept) when it may join the batch (`accept`); else none. */
  takeJoinable(accept: (writer: Joinable) => boolean): Joinable | undefined;
  /** Runs `fn` holding the lock (for `holds()`): work it spawned stops counting once `fn` ends. */
  runHolding<T>(fn: () => Promise<T>): Promise<T>;
}

interface Waiter {
  grant(): void;
  joinable?: Joinable;
}

const internalsOf = new WeakMap<WriteLock, LockInternals>();

/** The group-commit side of `lock` (every lock made here has one). */
export function lockInternals(lock: WriteLock): LockInternals {
  const internals = internalsOf.get(lock);
  if (internals === undefined) throw new Error("not a write lock of @vetted/store");
  return internals;
}

function createWriteLock(holding: AsyncLocalStorage<Hold>): WriteLock {
  const foreground: Waiter[] = [];
  const background: Waiter[] = [];
  let busy = false;
  const self = {};

  // Foreground writers served in a row while a background writer waited (it is served after FAIR_SHARE).
  let passedOver = 0;
  /** The lane whose head is served next. */
  const nextLane = (): Waiter[] | undefined => {
    if (background.length > 0 && (foreground.length === 0 || passedOver >= FAIR_SHARE)) return background;
    return foreground.length > 0 ? foreground : undefined;
  };
  const shift = (lane: Waiter[]): Waiter | undefined => {
    const next = lane.shift();
    if (lane === background) passedOver = 0;
    else if (background.length > 0) passedOver++;
    return next;
  };
  const release = (): void => {
    busy = false;
    pump();
  };
  const pump = (): void => {
    if (busy) return;
    const lane = nextLane();
    const next = lane === undefined ? undefined : shift(lane);
    if (next === undefined) return;
    busy = true;
    next.grant();
  };
  const queue = (waiter: Waiter, options: WriteOptions = {}): void => {
    (options.background === true ? background : foreground).push(waiter);
    pump();
  };

  const acquire = (options: WriteOptions = {}): Promise<() => void> =>
    new Promise((resolve) => {
      queue(
        {
          grant: () => {
            let released = false;
            resolve(() => {
              if (released) return;
              released = true;
              release();
            });
          },
        },
        options,
      );
    });

  const runHolding = async <T>(fn: () => Promise<T>): Promise<T> => {
    const hold: Hold = { lock: self, held: true };
    try {
      return await holding.run(hold, fn);
    } finally {
      hold.held = false;
    }
  };

  const lock = async <T>(fn: () => Promise<T>, options?: WriteOptions): Promise<T> => {
    const done = await acquire(options);
    try {
      return await runHolding(fn);
    } finally {
      done();
    }
  };

  const writeLock: WriteLock = Object.assign(lock, {
    acquire,
    holds: () => {
      const hold = holding.getStore();
      return hold !== undefined && hold.lock === self && hold.held;
    },
    waiting: () => ({ foreground: foreground.length, background: background.length }),
  });
  internalsOf.set(writeLock, {
    settings: SINGLE,
    stats: { batches: 0, writers: 0 },
    queueJoinable: (writer, options) => {
      let granted = false;
      const grant = () => {
        // Started on a microtask, like an acquired lock: writers queued in the same tick are in line by then.
        queueMicrotask(() =>
          writer.lead(() => {
            if (granted) return;
            granted = true;
            release();
          }),
        );
      };
      queue({ grant, joinable: writer }, options);
    },
    takeJoinable: (accept) => {
      const lane = nextLane();
      const head = lane?.[0];
      if (lane === undefined || head?.joinable === undefined || !accept(head.joinable)) return undefined;
      shift(lane);
      return head.joinable;
    },
    runHolding,
  });
  return writeLock;
}

/**
 * The write lock of `client` (a libsql client, or any object standing for one). Every Vetted package finds
 * its lock here, so writers from different packages sharing one client queue behind each other.
 */
export function writeLockForClient(client: object): WriteLock {
  const { locks, holding } = shared();
  let lock = locks.get(client);
  if (lock === undefined) {
    lock = createWriteLock(holding);
    locks.set(client, lock);
  }
  return lock;
}

/**
 * The write lock of the client behind `db`. The embedded libsql driver is synchronous: a second in-process
 * connection waiting on SQLite's write lock would block the very event loop that must release it, so
 * in-process writers queue here instead of overlapping. Other processes are kept out by SQLite itself.
 */
export function writeLockFor(db: LibSQLDatabase): WriteLock {
  // Drizzle's handle carries the client it wraps; several handles over one client share one lock.
  const client: unknown = (db as { $client?: unknown }).$client;
  return writeLockForClient(typeof client === "object" && client !== null ? client : db);
}
