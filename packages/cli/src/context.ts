import type { Colors } from "picocolors/types";
import type { Backend } from "./backend/backend.js";
import { BackendError } from "./backend/backend.js";
import { openBackend } from "./backend/open.js";
import { CliError, EXIT, type ExitCode } from "./exit.js";
import type { CliIo } from "./io.js";
import { stylesFor } from "./render/style.js";
import { type CliSettings, type GlobalOptions, loadSettings } from "./settings.js";

/** What every command is given: the io, the colours, and how to reach the engines or the server. */
export interface CommandContext {
  readonly io: CliIo;
  readonly c: Colors;
  /**
   * The command that runs this CLI where the person is, for messages ("Next: vetted review …"): `vetted`,
   * or `pnpm vetted` when the checkout's root script launched it (it sets `VETTED_COMMAND`).
   */
  readonly command: string;
  /** The settings from the environment and the global options (`--server`, `--token`). */
  settings(): CliSettings;
  /** Opens the backend, runs `fn`, and closes it whatever happens. */
  withBackend<T>(fn: (backend: Backend, settings: CliSettings) => Promise<T>): Promise<T>;
}

/** Builds the context of one run; `globals` reads the parsed global options when a command runs. */
export function createContext(io: CliIo, globals: () => GlobalOptions): CommandContext {
  const settings = () => loadSettings(io.env, globals(), io.cwd);
  return {
    io,
    c: stylesFor(io),
    command: commandName(io),
    settings,
    async withBackend(fn) {
      const resolved = settings();
      const backend = await openBackend(resolved);
      try {
        return await fn(backend, resolved);
      } finally {
        await backend.close();
      }
    },
  };
}

/** How the person runs this CLI: `VETTED_COMMAND` (set by the checkout's `pnpm vetted`), else `vetted`. */
export function commandName(io: CliIo): string {
  const name = io.env.VETTED_COMMAND?.trim();
  return name === undefined || name === "" ? "vetted" : name;
}

/** Codes that mean the command was given something wrong (or the environment is): exit 2. */
const USAGE_CODES = new Set([
  "VALIDATION_FAILED",
  "INVALID_JSON",
  "BAD_REQUEST",
  "NOT_FOUND",
  "JOB_NOT_FOUND",
  "ROW_NOT_FOUND",
  "CONFLICT_NOT_FOUND",
  "SOURCE_NOT_FOUND",
  "NOT_A_DIRECTORY",
  "INVALID_TEMPLATE",
  "INVALID_TARGET_PATH",
  "PATH_NOT_ABSOLUTE",
  "WRONG_JOB_KIND",
  "CURSOR_INVALID",
  "PREFERENCE_INVALID",
  "REGEX_INVALID",
  "SERVER_UNREACHABLE",
  "SERVER_ERROR",
  "UNAUTHORIZED",
  "FORBIDDEN_HOST",
  "FORBIDDEN_ORIGIN",
]);

/** The exit code of an error: 2 for usage and environment errors, 1 for what the engine refused. */
export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof BackendError) return USAGE_CODES.has(err.code) ? EXIT.usage : EXIT.findings;
  return EXIT.usage;
}

/** The one line printed on stderr for an error, after `vetted: `: always `CODE: message`. */
export function messageOf(err: unknown): string {
  if (err instanceof BackendError) return `${err.code}: ${err.message}`;
  if (err instanceof CliError)
    return `${err.code ?? (err.exitCode === EXIT.usage ? "USAGE" : "REFUSED")}: ${err.message}`;
  return `INTERNAL: ${err instanceof Error ? err.message : String(err)}`;
}
