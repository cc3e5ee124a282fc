import type { LibSQLDatabase } from "drizzle-orm/libsql";

/** Runs `fn` once every earlier holder of the same lock is done. */
export type WriteLock = <T>(fn: () => Promise<T>) => Promise<T>;

/** A Drizzle transaction handle over a libsql database. */
export type Tx = Parameters<Parameters<LibSQLDatabase["transaction"]>[0]>[0];

/**
 * The process-wide registry of write locks, one per libsql client. Every Vetted package finds its lock here
 * (under one global symbol, so two copies of this module in one process still agree), and writers from
 * different packages sharing one database handle queue behind each other instead of deadlocking.
 */
const REGISTRY_KEY = Symbol.for("@vetted/sqlite-write-locks");

function lockRegistry(): WeakMap<object, WriteLock> {
  const holder = globalThis as typeof globalThis & { [REGISTRY_KEY]?: WeakMap<object, WriteLock> };
  let registry = holder[REGISTRY_KEY];
  if (registry === undefined) {
    registry = new WeakMap();
    holder[REGISTRY_KEY] = registry;
  }
  return registry;
}

function createWriteLock(): WriteLock {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn);
    tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };
}

/**
 * The write lock of the client behind `db`. The embedded libsql driver is synchronous: a second in-process
 * connection waiting on SQLite's write lock would block the very event loop that must release it, so
 * in-process writers queue here instead of overlapping. Other processes are kept out by SQLite itself.
 */
export function writeLockFor(db: LibSQLDatabase): WriteLock {
  const registry = lockRegistry();
  // Drizzle's handle carries the client it wraps; several handles over one client share one lock.
  const client: unknown = (db as { $client?: unknown }).$client;
  const key: object = typeof client === "object" && client !== null ? client : db;
  let lock = registry.get(key);
  if (lock === undefined) {
    lock = createWriteLock();
    registry.set(key, lock);
  }
  return lock;
}

/** Runs `fn` in one write transaction, queued behind this process's other writers of the same client. */
export function runTransaction<T>(db: LibSQLDatabase, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return writeLockFor(db)(() => db.transaction(fn));
}
