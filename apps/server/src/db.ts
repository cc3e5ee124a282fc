import type { Client } from "@libsql/client";
import { type OpenDatabase, openDatabase as openStoreDatabase } from "@vetted/store/database";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { Config } from "./config.js";

/** The Drizzle database every package engine is given. */
export type Database = LibSQLDatabase;

export type { OpenDatabase };

/**
 * Opens the configured database through `@vetted/store`'s guarded client: a `file:` URL gets its directory
 * created and WAL journaling, so several processes can share the file; a `libsql://` or `http(s)://` URL
 * talks to sqld/Turso. Every write goes through the one writer; another process's write lock is waited out
 * for `VETTED_DB_BUSY_TIMEOUT_MS` without blocking the event loop, then answered `DATABASE_BUSY`.
 */
export function openDatabase(
  config: Pick<Config, "databaseUrl" | "databaseAuthToken" | "dbBusyTimeoutMs">,
): Promise<OpenDatabase> {
  return openStoreDatabase({
    url: config.databaseUrl,
    authToken: config.databaseAuthToken,
    busyTimeoutMs: config.dbBusyTimeoutMs,
  });
}

/** Measures a round trip to the database; never throws. */
export async function pingDatabase(client: Client): Promise<{ ok: boolean; latency_ms: number }> {
  const started = performance.now();
  try {
    await client.execute("SELECT 1");
    return { ok: true, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  } catch {
    return { ok: false, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  }
}
