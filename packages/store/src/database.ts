import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client, InArgs, InStatement, ResultSet, Transaction, TransactionMode } from "@libsql/client";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { driver, loadDriver } from "./driver.js";
import { EmbeddedClient } from "./embedded/client.js";
import { DatabaseBusyError, findBusyError, WriteInsideWriterError } from "./errors.js";
import { statementWrites } from "./sql-kind.js";
import { registerHeldExecutor } from "./statements.js";
import { type GroupCommitSettings, lockInternals, type WriteLock, writeLockForClient } from "./write-lock.js";

/** Where the database is and how long to wait for another process's write lock. */
export interface DatabaseOptions {
  /** `file:…` for an embedded SQLite file (WAL), or `libsql://…` / `http(s)://…` for a libSQL server. */
  url: string;
  authToken?: string | undefined;
  /** How long a statement waits for a lock held by another process before `DATABASE_BUSY` (default 5 000 ms). */
  busyTimeoutMs?: number;
  /**
   * Group commit: writers of `runTransaction` queued behind the lock join one transaction (each in its own
   * savepoint) and share one COMMIT. Default `{ maxWriters: 64, maxBatchMs: 20 }`; `false`: each commits alone.
   */
  groupCommit?: false | Partial<GroupCommitSettings>;
  /**
   * For a `file:` URL: keep each connection's prepared statements and run COMMIT off the event loop
   * (default `true`); `false` uses `@libsql/client`'s own `file:` client.
   */
  preparedStatements?: boolean;
}

/** Group commit's bounds unless the options say otherwise. */
export const DEFAULT_GROUP_COMMIT: Readonly<GroupCommitSettings> = Object.freeze({
  maxWriters: 64,
  maxBatchMs: 20,
});

function groupCommitSettings(option: DatabaseOptions["groupCommit"]): GroupCommitSettings {
  if (option === false) return { maxWriters: 1, maxBatchMs: 0 };
  return {
    maxWriters: Math.max(1, Math.floor(option?.maxWriters ?? DEFAULT_GROUP_COMMIT.maxWriters)),
    maxBatchMs: Math.max(0, option?.maxBatchMs ?? DEFAULT_GROUP_COMMIT.maxBatchMs),
  };
}

/** An open database: the Drizzle handle every engine is given, its client, and how to close it. */
export interface OpenDatabase {
  db: LibSQLDatabase;
  client: Client;
  close(): void;
}

/** How long SQLite itself blocks the thread on a lock before we wait without blocking it. */
const NATIVE_WAIT_MS = 20;
const MAX_BACKOFF_MS = 100;
/** Statements whose kind (read or write) is remembered at most. */
const KIND_CACHE = 2000;

/** One libsql client and the operations still using it; retired once a connection of it met SQLITE_BUSY. */
class Generation {
  inflight = 0;
  retired = false;
  constructor(readonly client: Client) {}

  enter(): void {
    this.inflight++;
  }

  leave(): void {
    this.inflight--;
    if (this.retired && this.inflight === 0) this.client.close();
  }

  retire(): void {
    if (this.retired) return;
    this.retired = true;
    if (this.inflight === 0) this.client.close();
  }
}

/** Whether `err` is SQLite's "busy" or "locked" (from this process's other connections or another process). */
function isBusyError(err: unknown): boolean {
  return findBusyError(err) !== undefined;
}

function sqlOf(stmt: InStatement): string {
  return typeof stmt === "string" ? stmt : stmt.sql;
}

/**
 * A libsql client that keeps the promises of the one writer by construction:
 * - a write sent outside a transaction queues behind the write lock like every transaction (and a write sent
 *   that way by the lock's own holder is refused: it would wait on itself);
 * - a transaction opened without the lock takes it until it ends;
 * - SQLite's "busy" from another process is waited out without blocking the event loop, up to
 *   `busyTimeoutMs`, then answered `DATABASE_BUSY` with nothing written;
 * - a connection that met "busy" is never used again. libsql leaves the statement that failed open on its
 *   connection, so every later `COMMIT` there fails "SQL statements in progress": the whole underlying
 *   client is replaced, and closed once the operations still using it end;
 * - code holding the lock reads through the handle what its transaction sees: a read sent outside `tx` by the
 *   writer goes to the open write transaction, so a writer in a group-commit batch sees the writes of the
 *   writers before it (not yet committed) exactly as it would after their commits.
 */
class GuardedClient implements Client {
  readonly protocol: string;
  closed = false;
  readonly #lock: WriteLock;
  readonly #busyTimeoutMs: number;
  readonly #open: () => Client;
  readonly #kinds = new Map<string, boolean>();
  #current: Generation;
  /** The write transaction opened by the lock's holder, while it is open. */
  #holderTx: GuardedTransaction | undefined;

  constructor(open: () => Client, busyTimeoutMs: number, groupCommit: GroupCommitSettings) {
    this.#open = open;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#current = new Generation(open());
    this.protocol = this.#current.client.protocol;
    this.#lock = writeLockForClient(this);
    lockInternals(this.#lock).settings = groupCommit;
    // executeInTx: a statement of the holder goes straight into its open write transaction.
    registerHeldExecutor(this, {
      execute: (stmt) => this.#readThrough()?.execute(stmt),
      exec: (sql) => this.#readThrough()?.executeMultiple(sql),
    });
  }

  /** The holder's open write transaction, when the calling context holds the lock. */
  #readThrough(): GuardedTransaction | undefined {
    const tx = this.#holderTx;
    // The lock first: asking a transaction whether it is still open reaches the driver, and a caller that
    // does not hold the lock (most of them) must not wait there on a COMMIT being made durable.
    return tx !== undefined && this.#lock.holds() && !tx.closed ? tx : undefined;
  }

  /** Whether a statement writes, remembered for the statements Drizzle sends again and again. */
  #writes(sql: string): boolean {
    let writes = this.#kinds.get(sql);
    if (writes === undefined) {
      writes = statementWrites(sql);
      if (this.#kinds.size >= KIND_CACHE) this.#kinds.clear();
      this.#kinds.set(sql, writes);
    }
    return writes;
  }

  /** Replaces `gen` (when still current) by a fresh client. */
  #heal(gen: Generation): void {
    if (gen === this.#current && !this.closed) this.#current = new Generation(this.#open());
    gen.retire();
  }

  /** Runs `op` on the current client, healing and retrying while the database is busy, up to the timeout. */
  async #retrying<T>(
    op: (client: Client) => Promise<T>,
    hold = false,
  ): Promise<{ value: T; gen: Generation }> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new (driver().LibsqlError)("The client is closed", "CLIENT_CLOSED");
      const gen = this.#current;
      gen.enter();
      try {
        const value = await op(gen.client);
        if (!hold) gen.leave();
        return { value, gen };
      } catch (err) {
        gen.leave();
        if (!isBusyError(err)) throw err;
        this.#heal(gen);
        const waited = Date.now() - started;
        if (waited >= this.#busyTimeoutMs) throw new DatabaseBusyError(waited);
        const pause = Math.min(MAX_BACKOFF_MS, 5 * 2 ** attempt, this.#busyTimeoutMs - waited);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Runs a write outside a transaction behind the write lock. */
  async #write<T>(sql: string, op: (client: Client) => Promise<T>): Promise<T> {
    if (this.#lock.holds()) throw new WriteInsideWriterError(sql);
    return this.#lock(async () => (await this.#retrying(op)).value);
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt: InStatement =
      typeof stmtOrSql === "string" && args !== undefined ? { sql: stmtOrSql, args } : stmtOrSql;
    const sql = sqlOf(stmt);
    const op = (client: Client) => client.execute(stmt);
    if (this.#writes(sql)) return this.#write(sql, op);
    const tx = this.#readThrough();
    if (tx !== undefined) return tx.execute(stmt);
    return (await this.#retrying(op)).value;
  }

  async batch(
    stmts: Array<InStatement | [string, InArgs?]>,
    mode?: TransactionMode,
  ): Promise<Array<ResultSet>> {
    const sqls = stmts.map((s) => (Array.isArray(s) ? s[0] : sqlOf(s)));
    const op = (client: Client) => client.batch(stmts, mode);
    const writing = sqls.find((sql) => this.#writes(sql));
    if (writing !== undefined) return this.#write(writing, op);
    const tx = this.#readThrough();
    if (tx !== undefined)
      return tx.batch(
        stmts.map((s): InStatement => (Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : s)),
      );
    return (await this.#retrying(op)).value;
  }

  migrate(stmts: Array<InStatement>): Promise<Array<ResultSet>> {
    return this.#write("migrate", (client) => client.migrate(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#write(sql, (client) => client.executeMultiple(sql));
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    const holder = mode !== "read" && this.#lock.holds();
    const release = mode === "read" || holder ? undefined : await this.#lock.acquire();
    try {
      const { value, gen } = await this.#retrying((client) => client.transaction(mode), true);
      const tx: GuardedTransaction = new GuardedTransaction(value, {
        busy: () => this.#heal(gen),
        settled: () => {
          if (this.#holderTx === tx) this.#holderTx = undefined;
          gen.leave();
          release?.();
        },
      });
      if (holder) this.#holderTx = tx;
      return tx;
    } catch (err) {
      release?.();
      throw err;
    }
  }

  sync(): ReturnType<Client["sync"]> {
    return this.#current.client.sync();
  }

  close(): void {
    this.closed = true;
    this.#current.retire();
  }

  reconnect(): void {
    this.closed = false;
    this.#heal(this.#current);
  }
}

/** A transaction that tells its client when it met "busy" and when it ended (however it ended). */
class GuardedTransaction implements Transaction {
  #settled = false;
  constructor(
    readonly inner: Transaction,
    readonly hooks: { busy(): void; settled(): void },
  ) {}

  async #guard<T>(op: () => Promise<T>, ends = false): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      this.hooks.busy();
      // The transaction cannot go on: end it (the connection goes back to a retired client).
      this.close();
      throw findBusyError(err) ?? err;
    } finally {
      if (ends) this.#settle();
    }
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.hooks.settled();
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return this.#guard(() => this.inner.execute(stmt));
  }

  batch(stmts: Array<InStatement>): Promise<Array<ResultSet>> {
    return this.#guard(() => this.inner.batch(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#guard(() => this.inner.executeMultiple(sql));
  }

  rollback(): Promise<void> {
    return this.#guard(() => this.inner.rollback(), true);
  }

  commit(): Promise<void> {
    return this.#guard(() => this.inner.commit(), true);
  }

  close(): void {
    try {
      this.inner.close();
    } finally {
      this.#settle();
    }
  }

  get closed(): boolean {
    return this.inner.closed;
  }
}

function isFileUrl(url: string): boolean {
  return url.startsWith("file:");
}

/**
 * The file of a plain `file:` URL (`file:/abs/x.db`, `file:rel.db`, `file:///abs/x.db`), for the embedded
 * client; anything else (in-memory, query parameters, a host) is left to `@libsql/client`.
 */
function embeddedPath(url: string): string | undefined {
  if (!isFileUrl(url) || /[?#]/.test(url)) return undefined;
  let rest = url.slice("file:".length);
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const host = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    if (host !== "" && host.toLowerCase() !== "localhost") return undefined;
    rest = slash < 0 ? "" : rest.slice(slash);
  }
  try {
    const path = decodeURIComponent(rest);
    return path === "" || path.startsWith(":memory:") ? undefined : path;
  } catch {
    return undefined;
  }
}

/**
 * A libsql client with the guarantees of {@link GuardedClient}: writes through the one writer (group commit
 * on, see {@link DatabaseOptions.groupCommit}), "busy" waited out without blocking the event loop and answered
 * `DATABASE_BUSY` past `busyTimeoutMs`, and no connection reused after it met "busy".
 */
export function createDatabaseClient(options: DatabaseOptions): Client {
  const file = isFileUrl(options.url);
  const timeout = Math.min(NATIVE_WAIT_MS, options.busyTimeoutMs ?? NATIVE_WAIT_MS);
  const embedded = options.preparedStatements === false ? undefined : embeddedPath(options.url);
  const open = (): Client =>
    embedded !== undefined
      ? new EmbeddedClient(embedded, timeout)
      : driver().createClient({
          url: options.url,
          ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
          ...(file ? { timeout } : {}),
        });
  return new GuardedClient(open, options.busyTimeoutMs ?? 5000, groupCommitSettings(options.groupCommit));
}

/**
 * Opens a database for the engines: a `file:` URL gets its folder created and WAL journaling (so several
 * processes can share the file); a `libsql://` or `http(s)://` URL talks to a libSQL server.
 */
export async function openDatabase(options: DatabaseOptions): Promise<OpenDatabase> {
  await loadDriver();
  const { drizzle } = await import("drizzle-orm/libsql");
  if (isFileUrl(options.url)) {
    const path = options.url.startsWith("file://")
      ? fileURLToPath(options.url)
      : options.url.slice("file:".length).split("?")[0];
    if (path !== undefined && path !== "" && path !== ":memory:")
      mkdirSync(dirname(path), { recursive: true });
  }
  const client = createDatabaseClient(options);
  // journal_mode is stored in the file, so every connection (and every client after a heal) inherits it.
  if (isFileUrl(options.url)) await client.execute("PRAGMA journal_mode = WAL");
  return { db: drizzle(client), client, close: () => client.close() };
}
