import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import type { Config } from "./config.js";

/** The Drizzle database every package engine is given. */
export type Database = LibSQLDatabase;

/** An open database: the Drizzle handle, the raw client, and how to close it. */
export interface OpenDatabase {
  db: Database;
  client: Client;
  close(): void;
}

/**
 * Opens the configured database. A `file:` URL gets its directory created, WAL journaling and a busy
 * timeout, so several processes can share the file; a `libsql://` or `http(s)://` URL talks to sqld/Turso.
 */
export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "databaseAuthToken" | "databaseIsFile" | "dbBusyTimeoutMs">,
): Promise<OpenDatabase> {
  if (config.databaseIsFile) {
    const path = config.databaseUrl.startsWith("file://")
      ? fileURLToPath(config.databaseUrl)
      : config.databaseUrl.slice("file:".length);
    mkdirSync(dirname(path), { recursive: true });
  }
  const client = createClient({
    url: config.databaseUrl,
    ...(config.databaseAuthToken === undefined ? {} : { authToken: config.databaseAuthToken }),
    ...(config.databaseIsFile ? { timeout: config.dbBusyTimeoutMs } : {}),
  });
  if (config.databaseIsFile) {
    // journal_mode is stored in the file, so every pooled connection inherits it.
    await client.execute("PRAGMA journal_mode = WAL");
  }
  return { db: drizzle(client), client, close: () => client.close() };
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
