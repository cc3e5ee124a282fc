import type { Client, InArgs, InStatement, ResultSet, Transaction, TransactionMode } from "@libsql/client";
import { EmbeddedConnection, nativeModule } from "./connection.js";

/**
 * A `@libsql/client` `Client` for an embedded SQLite file, over the same native driver, that keeps each
 * connection's prepared statements and commits off the event loop: `COMMIT` runs on the driver's own threads,
 * so the fsync that makes a transaction durable no longer stops every other request while it lasts. Its
 * connection stays with the transaction until the commit is done. A long script of a transaction
 * (`executeMultiple`, see `OFF_THREAD_SCRIPT_CHARS`) runs there too. Everything else (pooling, statements,
 * results, errors) behaves as `@libsql/client`'s `file:` client does.
 */

/** Connections per client at most, as `@libsql/client`'s default. */
const MAX_CONNECTIONS = 20;
/**
 * A script at least this long (a bulk insert carrying its values inline) runs on the driver's threads, as
 * COMMIT does: SQLite builds its rows and index entries while the event loop goes on. Shorter ones (a
 * `SAVEPOINT`) run at once on the calling thread: the hop costs more than they do.
 */
export const OFF_THREAD_SCRIPT_CHARS = 64 * 1024;

function beginFor(mode: TransactionMode): string {
  if (mode === "write") return "BEGIN IMMEDIATE";
  if (mode === "read") return "BEGIN TRANSACTION READONLY";
  if (mode === "deferred") return "BEGIN DEFERRED";
  throw new RangeError('Unknown transaction mode, supported values are "write", "read" and "deferred"');
}

function normalized(stmt: InStatement | [string, InArgs?]): InStatement {
  return Array.isArray(stmt) ? { sql: stmt[0], args: stmt[1] ?? [] } : stmt;
}

/** Every statement of `stmts` on `conn`, with the index of a failing one in a `LibsqlBatchError`. */
function runAll(conn: EmbeddedConnection, stmts: InStatement[]): ResultSet[] {
  const results: ResultSet[] = [];
  const { LibsqlError, LibsqlBatchError } = nativeModule();
  stmts.forEach((stmt, i) => {
    try {
      if (!conn.db.inTransaction)
        throw new LibsqlBatchError("The transaction has been rolled back", i, "TRANSACTION_CLOSED");
      results.push(conn.execute(stmt));
    } catch (err) {
      if (err instanceof LibsqlBatchError || !(err instanceof LibsqlError)) throw err;
      const cause = err.cause instanceof Error ? err.cause : undefined;
      throw new LibsqlBatchError(err.message, i, err.code, err.extendedCode, err.rawCode, cause);
    }
  });
  return results;
}

class Pool {
  #idle: EmbeddedConnection[] = [];
  readonly #all = new Set<EmbeddedConnection>();
  /** Connections an open transaction (or a batch waiting for its commit) holds. */
  readonly #held = new Set<EmbeddedConnection>();
  closed = false;

  constructor(
    readonly path: string,
    readonly timeout: number | undefined,
  ) {}

  /** A connection for a call that gives it back before it returns, or for a transaction (`hold`). */
  acquire(hold: boolean): EmbeddedConnection {
    this.#checkOpen();
    let conn = this.#idle.pop();
    if (conn === undefined) {
      if (this.#held.size >= MAX_CONNECTIONS) {
        throw new (nativeModule().LibsqlError)(
          `All ${MAX_CONNECTIONS} of this client's connections are held by open transactions. ` +
            "Commit or roll back one before using the client again.",
          "TRANSACTION_ACTIVE",
        );
      }
      const { Database } = nativeModule();
      const options = this.timeout === undefined ? {} : { timeout: this.timeout };
      conn = new EmbeddedConnection(new Database(this.path, options));
      this.#all.add(conn);
    }
    if (hold) this.#held.add(conn);
    return conn;
  }

  release(conn: EmbeddedConnection): void {
    this.#held.delete(conn);
    if (conn.db.open && conn.db.inTransaction) {
      try {
        conn.executeMultiple("ROLLBACK");
      } catch {
        this.#drop(conn);
        return;
      }
    }
    if (this.closed || !conn.db.open) this.#drop(conn);
    else this.#idle.push(conn);
  }

  #drop(conn: EmbeddedConnection): void {
    this.#all.delete(conn);
    conn.close();
  }

  #checkOpen(): void {
    if (this.closed) throw new (nativeModule().LibsqlError)("The client is closed", "CLIENT_CLOSED");
  }

  close(): void {
    this.closed = true;
    for (const conn of this.#all) if (!this.#held.has(conn)) conn.close();
    this.#all.clear();
    this.#idle = [];
  }
}

/** A transaction owning its connection until it is committed, rolled back or closed. */
class EmbeddedTransaction implements Transaction {
  #conn: EmbeddedConnection | undefined;
  /** A COMMIT was sent: the transaction counts as closed while it is made durable. */
  #ending = false;
  /** A long script is running on the driver's threads: the transaction is open, and its connection busy. */
  #scripts = 0;

  constructor(
    conn: EmbeddedConnection,
    readonly release: (conn: EmbeddedConnection) => void,
  ) {
    this.#conn = conn;
  }

  #open(): EmbeddedConnection {
    const conn = this.#conn;
    if (conn === undefined || !conn.db.open || !conn.db.inTransaction)
      throw new (nativeModule().LibsqlError)("The transaction is closed", "TRANSACTION_CLOSED");
    return conn;
  }

  #settle(): void {
    const conn = this.#conn;
    if (conn === undefined) return;
    this.#conn = undefined;
    this.release(conn);
  }

  async execute(stmt: InStatement): Promise<ResultSet> {
    return this.#open().execute(stmt);
  }

  async batch(stmts: Array<InStatement>): Promise<Array<ResultSet>> {
    return runAll(this.#open(), stmts);
  }

  async executeMultiple(sql: string): Promise<void> {
    const conn = this.#open();
    if (sql.length < OFF_THREAD_SCRIPT_CHARS) return conn.executeMultiple(sql);
    this.#scripts++;
    try {
      await conn.executeOffThread(sql);
    } finally {
      this.#scripts--;
    }
  }

  async rollback(): Promise<void> {
    const conn = this.#conn;
    try {
      if (conn?.db.open && conn.db.inTransaction) conn.executeMultiple("ROLLBACK");
    } finally {
      this.#settle();
    }
  }

  async commit(): Promise<void> {
    try {
      const conn = this.#open();
      // Ending: from here on `closed` answers without asking the connection, which the COMMIT holds.
      this.#ending = true;
      await conn.executeOffThread("COMMIT");
    } finally {
      this.#settle();
    }
  }

  close(): void {
    const conn = this.#conn;
    if (conn === undefined) return;
    try {
      if (conn.db.open && conn.db.inTransaction) conn.executeMultiple("ROLLBACK");
    } finally {
      this.#settle();
    }
  }

  get closed(): boolean {
    const conn = this.#conn;
    if (this.#ending || conn === undefined) return true;
    // Asking the connection would wait for the script that holds it.
    if (this.#scripts > 0) return false;
    return !conn.db.open || !conn.db.inTransaction;
  }
}

/** The embedded client (see the module's comment). */
export class EmbeddedClient implements Client {
  readonly protocol = "file";
  closed = false;
  #pool: Pool;

  constructor(path: string, timeout?: number) {
    this.#pool = new Pool(path, timeout);
    // Fails here, as `@libsql/client` does, when the file cannot be opened at all.
    const conn = this.#pool.acquire(false);
    try {
      conn.execute("SELECT 1");
    } finally {
      this.#pool.release(conn);
    }
  }

  #borrow<T>(op: (conn: EmbeddedConnection) => T): T {
    this.#checkOpen();
    const conn = this.#pool.acquire(false);
    try {
      return op(conn);
    } finally {
      this.#pool.release(conn);
    }
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt: InStatement =
      typeof stmtOrSql === "string" ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    return this.#borrow((conn) => conn.execute(stmt));
  }

  async batch(
    stmts: Array<InStatement | [string, InArgs?]>,
    mode: TransactionMode = "deferred",
  ): Promise<ResultSet[]> {
    const tx = await this.transaction(mode);
    try {
      const results = await tx.batch(stmts.map(normalized));
      await tx.commit();
      return results;
    } finally {
      tx.close();
    }
  }

  async migrate(stmts: Array<InStatement>): Promise<ResultSet[]> {
    return this.#borrow((conn) => {
      conn.executeMultiple("PRAGMA foreign_keys=off");
      try {
        conn.executeMultiple("BEGIN DEFERRED");
        const results = runAll(conn, stmts);
        conn.executeMultiple("COMMIT");
        return results;
      } finally {
        if (conn.db.inTransaction) conn.executeMultiple("ROLLBACK");
        conn.executeMultiple("PRAGMA foreign_keys=on");
      }
    });
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    this.#checkOpen();
    const conn = this.#pool.acquire(true);
    try {
      conn.executeMultiple(beginFor(mode));
    } catch (err) {
      this.#pool.release(conn);
      throw err;
    }
    return new EmbeddedTransaction(conn, (used) => this.#pool.release(used));
  }

  async executeMultiple(sql: string): Promise<void> {
    this.#borrow((conn) => conn.executeMultiple(sql));
  }

  async sync(): Promise<never> {
    throw new (nativeModule().LibsqlError)(
      "sync() needs an embedded replica (syncUrl)",
      "SYNC_NOT_SUPPORTED",
    );
  }

  close(): void {
    this.closed = true;
    this.#pool.close();
  }

  reconnect(): void {
    const { path, timeout } = this.#pool;
    this.#pool.close();
    this.#pool = new Pool(path, timeout);
    this.closed = false;
  }

  #checkOpen(): void {
    if (this.closed) throw new (nativeModule().LibsqlError)("The client is closed", "CLIENT_CLOSED");
  }
}
