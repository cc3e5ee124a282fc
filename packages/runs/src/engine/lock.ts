import type { LibSQLDatabase } from "drizzle-orm/libsql";

/** Runs `fn` once every earlier holder of the same lock is done. */
export type Lock = <T>(fn: () => Promise<T>) => Promise<T>;

const locks = new WeakMap<object, Lock>();

function createLock(): Lock {
  let tail: Promise<void> = Promise.resolve();
  return async (fn) => {
    const previous = tail;
    let release: () => void = () => {};
    tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  };
}

/**
 * The write lock of one database handle. The embedded libsql driver is synchronous: a second connection
 * of the same process waiting on SQLite's write lock would block the event loop that must release it.
 * Every writer of this package goes through this lock, so in-process writes queue instead.
 */
export function writeLockFor(db: LibSQLDatabase): Lock {
  let lock = locks.get(db);
  if (lock === undefined) {
    lock = createLock();
    locks.set(db, lock);
  }
  return lock;
}

/** A Drizzle transaction handle. */
export type Tx = Parameters<Parameters<LibSQLDatabase["transaction"]>[0]>[0];

/** Runs `fn` in one write transaction (BEGIN IMMEDIATE), queued behind this process's other writers. */
export function writeTx<T>(db: LibSQLDatabase, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return writeLockFor(db)(() => db.transaction(fn));
}
