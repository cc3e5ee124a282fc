import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { usageError } from "./exit.js";

/** Where the CLI works: its own data directory (standalone) or a server. */
export interface CliSettings {
  /** `VETTED_DATA_DIR`, else `$XDG_DATA_HOME/vetted`, else `~/.local/share/vetted` (as the server). */
  dataDir: string;
  /** `DATABASE_URL` when it names a file, else `file:<dataDir>/vetted.db`. */
  databaseUrl: string;
  /** How long the embedded database waits for another process's lock (`VETTED_DB_BUSY_TIMEOUT_MS`). */
  busyTimeoutMs: number;
  /** `VETTED_ALLOWED_ROOTS` (comma-separated), else the home and temp directories. */
  allowedRoots: string[];
  /** Whether `VETTED_ALLOWED_ROOTS` named the roots (doctor reports the defaults differently). */
  allowedRootsFromEnv: boolean;
  /** `VETTED_JOURNAL_KEY`, else the key file in the data directory. */
  journalKey: string | undefined;
  /** `--server` or `VETTED_SERVER`: when set, every command talks to that server. */
  server: string | undefined;
  /** `--token` or `VETTED_API_TOKEN`. */
  token: string | undefined;
}

/** Global options given on the command line. */
export interface GlobalOptions {
  server?: string | undefined;
  token?: string | undefined;
}

function defaultDataDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_DATA_HOME;
  return xdg ? join(xdg, "vetted") : join(homedir(), ".local", "share", "vetted");
}

function commaList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

function serverUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(
      `--server / VETTED_SERVER must be an http(s) URL such as http://127.0.0.1:8787, not ${value}`,
      "INVALID_SERVER_URL",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(
      `--server / VETTED_SERVER must start with http:// or https://, not ${url.protocol}`,
      "INVALID_SERVER_URL",
    );
  }
  return url.origin;
}

/** Resolves the CLI's settings from the environment (the same variables as the server) and the options. */
export function loadSettings(
  env: Readonly<Record<string, string | undefined>>,
  options: GlobalOptions,
  cwd: string,
): CliSettings {
  const dataDir = resolve(cwd, env.VETTED_DATA_DIR || defaultDataDir(env));
  const fromEnv = env.DATABASE_URL;
  if (fromEnv !== undefined && fromEnv !== "" && !fromEnv.startsWith("file:")) {
    throw usageError(
      `DATABASE_URL=${fromEnv} is not a file: the standalone CLI uses an embedded database; use --server to work with a server instead`,
      "INVALID_ENV",
    );
  }
  const busy = Number(env.VETTED_DB_BUSY_TIMEOUT_MS ?? "5000");
  if (!Number.isInteger(busy) || busy < 0)
    throw usageError("VETTED_DB_BUSY_TIMEOUT_MS must be a whole number", "INVALID_ENV");
  const roots = commaList(env.VETTED_ALLOWED_ROOTS);
  const journalKey = env.VETTED_JOURNAL_KEY || undefined;
  if (journalKey !== undefined && journalKey.length < 16) {
    throw usageError("VETTED_JOURNAL_KEY must be at least 16 characters", "INVALID_ENV");
  }
  return {
    dataDir,
    databaseUrl: fromEnv || `file:${join(dataDir, "vetted.db")}`,
    busyTimeoutMs: busy,
    allowedRoots: roots.length > 0 ? roots.map((root) => resolve(cwd, root)) : [homedir(), tmpdir()],
    allowedRootsFromEnv: roots.length > 0,
    journalKey,
    server: serverUrl(options.server ?? env.VETTED_SERVER),
    token: options.token ?? (env.VETTED_API_TOKEN || undefined),
  };
}
