import type { Client } from "@libsql/client";
import type { SlidingWindow, WindowCount } from "./rate-window.js";

/*
 * The rate-limit windows shared by every server process on one database. A hit costs no I/O: each process
 * counts in memory (`SlidingWindow`) and, every `intervalMs` (1 s by default), sends its new hits to the
 * `server_rate_windows` table (one upserted row per key and minute, `count = count + new`) and reads back
 * the totals of every process, in one batch. So N processes allow the limit in total, give or take the
 * hits the others made since their last exchange (at most `intervalMs` worth).
 */

/** The table of the shared windows (made at start-up; rows older than the previous minute are deleted). */
export const RATE_WINDOWS_DDL = `CREATE TABLE IF NOT EXISTS server_rate_windows (
  key TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
) WITHOUT ROWID`;

/** The exchange running in the background; `stop` ends it, `exchange` runs one now (tests). */
export interface RateSync {
  exchange(): Promise<void>;
  stop(): void;
}

/** Options of {@link startRateSync}. */
export interface RateSyncOptions {
  windowMs: number;
  intervalMs: number;
  /** Called when an exchange failed (the hits stay pending and go with the next one). */
  onError?: (err: unknown) => void;
  now?: () => number;
}

/** Sends `pending` and reads the totals of the current and previous window, in one batch. */
async function exchangeOnce(
  client: Client,
  pending: readonly WindowCount[],
  since: number,
  cleanup: boolean,
): Promise<WindowCount[]> {
  // Up to 100 rows a statement (SQLite allows 32 766 parameters), one statement per chunk.
  const upserts = [];
  for (let i = 0; i < pending.length; i += 100) {
    const chunk = pending.slice(i, i + 100);
    upserts.push({
      sql: `INSERT INTO server_rate_windows (key, window_start, count) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")} ON CONFLICT (key, window_start) DO UPDATE SET count = count + excluded.count`,
      args: chunk.flatMap((p) => [p.key, p.windowStart, p.count]),
    });
  }
  const select = {
    sql: "SELECT key, window_start, count FROM server_rate_windows WHERE window_start >= ?",
    args: [since],
  };
  const stale = { sql: "DELETE FROM server_rate_windows WHERE window_start < ?", args: [since] };
  const writes = [...upserts, ...(cleanup ? [stale] : [])];
  // No new hits: a read alone (no write lock), to learn the other processes' hits.
  const results =
    writes.length === 0 ? [await client.execute(select)] : await client.batch([...writes, select], "write");
  const rows = results.at(-1)?.rows ?? [];
  return rows.map((row) => ({
    key: String(row.key),
    windowStart: Number(row.window_start),
    count: Number(row.count),
  }));
}

/** Starts exchanging `windows` with the database every `intervalMs` (the timer does not hold the process). */
export function startRateSync(client: Client, windows: SlidingWindow, options: RateSyncOptions): RateSync {
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;
  let lastCleanup = 0;
  const exchange = (): Promise<void> => {
    running ??= (async () => {
      // The database was closed (the server stopping, a test's app torn down): nothing more to exchange.
      if (client.closed) {
        clearInterval(timer);
        return;
      }
      const at = now();
      const start = at - (at % options.windowMs);
      const since = start - options.windowMs;
      const cleanup = lastCleanup !== start;
      const pending = windows.pending();
      try {
        const totals = await exchangeOnce(client, pending, since, cleanup);
        if (cleanup) lastCleanup = start;
        windows.applyTotals(pending, totals, now());
      } catch (err) {
        options.onError?.(err);
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void exchange(), options.intervalMs);
  timer.unref();
  return { exchange, stop: () => clearInterval(timer) };
}
