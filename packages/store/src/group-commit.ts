import { AsyncLocalStorage } from "node:async_hooks";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { execInTx } from "./statements.js";
import {
  type Joinable,
  type LockInternals,
  lockInternals,
  type Tx,
  type WriteOptions,
  writeLockFor,
} from "./write-lock.js";

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * One `runTransaction` call waiting for, or running in, a batch. Its `fn` runs in the async context of the
 * call (not of the batch's leader), in its own savepoint, holding the lock; its promise settles only after
 * the batch's transaction has committed (or rolled back).
 */
class Writer implements Joinable {
  outcome: Outcome | undefined;
  readonly #inCaller = AsyncLocalStorage.snapshot();

  constructor(
    readonly db: LibSQLDatabase,
    readonly internals: LockInternals,
    readonly fn: (tx: Tx) => Promise<unknown>,
    readonly resolve: (value: unknown) => void,
    readonly reject: (err: unknown) => void,
  ) {}

  lead(release: () => void): void {
    runBatch(this, release).catch(() => undefined);
  }

  /** Runs `fn` on `tx` in the caller's context, holding the lock. */
  run(tx: Tx): Promise<unknown> {
    return this.#inCaller(() => this.internals.runHolding(() => this.fn(tx)));
  }

  settle(batchError?: { error: unknown }): void {
    const outcome = this.outcome;
    if (outcome !== undefined && !outcome.ok) this.reject(outcome.error);
    else if (batchError !== undefined) this.reject(batchError.error);
    else if (outcome !== undefined) this.resolve(outcome.value);
    else this.reject(new Error("the writer's batch ended before it ran"));
  }
}

/**
 * The savepoint each writer of a batch runs in, one name per place in the batch (a writer's own nested
 * transactions use Drizzle's `sp<n>`).
 */
const savepointOf = (place: number) => `vetted_writer_${place}`;

/**
 * Runs `writer`, the `place`-th of its batch, in its own savepoint of the batch's transaction `outer`. A
 * `fn` that throws rolls back to its savepoint, which undoes its work only (the writers before it set
 * theirs earlier), and is recorded as its own outcome; any other failure (the savepoint could not be taken
 * or rolled back to: SQLite ended the transaction) is thrown, and breaks the whole batch. The savepoints
 * are not released one by one: the COMMIT releases them all, one statement fewer per writer. The
 * savepoint statements go straight to the driver ({@link execInTx}).
 */
async function runInSavepoint(outer: Tx, writer: Writer, place: number): Promise<void> {
  const { db } = writer;
  const name = savepointOf(place);
  await execInTx(db, outer, `SAVEPOINT ${name}`);
  try {
    writer.outcome = { ok: true, value: await writer.run(outer) };
  } catch (error) {
    // Rolled back to its savepoint: the batch's other work stands.
    await execInTx(db, outer, `ROLLBACK TO ${name}`);
    writer.outcome = { ok: false, error };
  }
}

/**
 * Leads a batch: one write transaction in which `leader` runs first, then every writer next in line (same
 * handle, lane order and fair share kept) until the queue is empty, `maxWriters` ran, or the transaction
 * has been open `maxBatchMs`. No writer's promise settles before the COMMIT returned (with
 * `synchronous=FULL`, after its fsync); a COMMIT that fails, or a batch broken midway, rejects them all.
 */
async function runBatch(leader: Writer, release: () => void): Promise<void> {
  const { db, internals } = leader;
  const batch: Writer[] = [leader];
  let failure: { error: unknown } | undefined;
  try {
    await internals.runHolding(() =>
      db.transaction(async (outer) => {
        const { maxWriters, maxBatchMs } = internals.settings;
        const opened = performance.now();
        await runInSavepoint(outer, leader, 0);
        while (batch.length < maxWriters && performance.now() - opened < maxBatchMs) {
          const next = internals.takeJoinable((w) => w instanceof Writer && w.db === db);
          if (!(next instanceof Writer)) break;
          batch.push(next);
          await runInSavepoint(outer, next, batch.length - 1);
        }
      }),
    );
  } catch (error) {
    // Nothing of the batch is on disk: the transaction rolled back (or never committed).
    failure = { error };
  } finally {
    release();
  }
  internals.stats.batches++;
  internals.stats.writers += batch.length;
  for (const writer of batch) writer.settle(failure);
}

/**
 * Runs `fn` in one write transaction, queued behind this process's other writers of the same client
 * (`background`: behind every queued foreground writer too). A `fn` that throws rolls back its own work.
 *
 * With group commit on (the guarded client of `openDatabase`), writers queued behind the lock join the
 * transaction of the writer ahead of them, each in its own savepoint, and share one COMMIT: each promise
 * resolves once that COMMIT is durable, and rejects alone when its own `fn` threw. Awaiting it inside a
 * writer's `fn` waits on itself (work a writer only starts, like a timer, is served after it).
 */
export function runTransaction<T>(
  db: LibSQLDatabase,
  fn: (tx: Tx) => Promise<T>,
  options?: WriteOptions,
): Promise<T> {
  const lock = writeLockFor(db);
  const internals = lockInternals(lock);
  if (internals.settings.maxWriters <= 1) return lock(() => db.transaction(fn), options);
  return new Promise<T>((resolve, reject) => {
    const writer = new Writer(db, internals, fn, (value) => resolve(value as T), reject);
    internals.queueJoinable(writer, options);
  });
}
