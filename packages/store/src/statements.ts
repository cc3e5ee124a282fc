import type { InValue, ResultSet } from "@libsql/client";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { Tx } from "./write-lock.js";

/** A statement as the driver takes it: SQL text with `?` parameters, and their values in order. */
export interface HeldStatement {
  sql: string;
  args: InValue[];
}

/** How a guarded client runs statements in the write transaction its calling context holds (undefined: none). */
interface HeldExecutor {
  execute(stmt: HeldStatement): Promise<ResultSet> | undefined;
  /** Statements without parameters or results, run as one script. */
  exec(sql: string): Promise<void> | undefined;
}

/**
 * The guarded clients (`@vetted/store/database`) register here how they run a statement in the write
 * transaction the calling context holds; this module needs no driver.
 */
const heldExecutors = new WeakMap<object, HeldExecutor>();

/** Registers `client`'s executor for {@link executeInTx} (called by the guarded client it belongs to). */
export function registerHeldExecutor(client: object, executor: HeldExecutor): void {
  heldExecutors.set(client, executor);
}

/** The Drizzle handle's client (`drizzle()` keeps it as `$client`). */
function clientOf(db: LibSQLDatabase): object | undefined {
  const client: unknown = (db as { $client?: unknown }).$client;
  return typeof client === "object" && client !== null ? client : undefined;
}

/**
 * Runs one statement whose SQL the caller built once (an engine's hot path writes the same few shapes
 * again and again) in the write transaction `tx` of `runTransaction(db, …)`: the statement goes to the
 * driver as it is, without Drizzle's query builder or its SQL assembly, which cost several times the
 * statement itself. It lands exactly where `tx.run(…)` would: in the calling writer's savepoint of the
 * open transaction, rolled back with it. A handle whose client is not a guarded one runs it through
 * `tx.run`, as Drizzle SQL built from the same text.
 */
export async function executeInTx(
  db: LibSQLDatabase,
  tx: Tx,
  sql: string,
  args: InValue[],
): Promise<ResultSet> {
  const client = clientOf(db);
  const direct = client === undefined ? undefined : heldExecutors.get(client)?.execute({ sql, args });
  if (direct !== undefined) return direct;
  const drizzle = await import("drizzle-orm");
  const parts = sql.split("?");
  const chunks = parts.flatMap((part, i) =>
    i < args.length ? [drizzle.sql.raw(part), drizzle.sql`${args[i]}`] : [drizzle.sql.raw(part)],
  );
  return tx.run(drizzle.sql.join(chunks));
}

/**
 * Runs statements without parameters or results (`SAVEPOINT …`) in `tx` as {@link executeInTx} does, as one
 * script: the driver neither prepares them one by one nor asks each for its result columns.
 */
export async function execInTx(db: LibSQLDatabase, tx: Tx, sql: string): Promise<void> {
  const client = clientOf(db);
  const direct = client === undefined ? undefined : heldExecutors.get(client)?.exec(sql);
  if (direct !== undefined) return direct;
  const drizzle = await import("drizzle-orm");
  await tx.run(drizzle.sql.raw(sql));
}
