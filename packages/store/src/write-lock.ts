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

function createWriteLock(holding: AsyncLocalStorage<Hold>): WriteLock {
  const foreground: Array<() => void> = [];
  const background: Array<() => void> = [];
  let busy = false;
  const self = {};

  // Foreground writers served in a row while a background writer waited (it is served after FAIR_SHARE).
  let passedOver = 0;
  const pump = (): void => {
    if (busy) return;
    let next: (() => void) | undefined;
    if (background.length > 0 && (foreground.length === 0 || passedOver >= FAIR_SHARE)) {
      next = background.shift();
      passedOver = 0;
    } else {
      next = foreground.shift();
      if (background.length > 0) passedOver++;
    }
    if (next === undefined) return;
    busy = true;
    next();
  };

  const acquire = (options: WriteOptions = {}): Promise<() => void> =>
    new Promise((resolve) => {
      (options.background === true ? background : foreground).push(() => {
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          busy = false;
          pump();
        });
      });
      pump();
    });

  const lock = async <T>(fn: () => Promise<T>, options?: WriteOptions): Promise<T> => {
    const release = await acquire(options);
    const hold: Hold = { lock: self, held: true };
    try {
      return await holding.run(hold, fn);
    } finally {
      hold.held = false;
      release();
    }
  };

  return Object.assign(lock, {
    acquire,
    holds: () => {
      const hold = holding.getStore();
      return hold !== undefined && hold.lock === self && hold.held;
    },
    waiting: () => ({ foreground: foreground.length, background: background.length }),
  });
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

/**
 * Runs `fn` in one write transaction, queued behind this process's other writers of the same client
 * (`background`: behind every queued foreground writer too). A `fn` that throws rolls the transaction back.
 */
export function runTransaction<T>(
  db: LibSQLDatabase,
  fn: (tx: Tx) => Promise<T>,
  options?: WriteOptions,
): Promise<T> {
  return writeLockFor(db)(() => db.transaction(fn), options);
}
