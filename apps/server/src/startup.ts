import { statSync } from "node:fs";
import type { Server } from "node:net";
import type { Logger } from "./logger.js";

/**
 * Start-up checks and the listen call of `main.ts`: what a person should hear about in one clear line
 * instead of a silent misconfiguration or a raw stack trace.
 */

/** Why an allowed root cannot be used, or `undefined` when it is an existing folder. */
function rootProblem(root: string): string | undefined {
  try {
    return statSync(root).isDirectory() ? undefined : "is not a folder";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code ?? "error"})`;
  }
}

/**
 * Warns once per allowed root (VETTED_ALLOWED_ROOTS) that is missing or not a folder: file organization
 * refuses every path under it until it exists. Answers the roots it warned about.
 */
export function warnUnusableRoots(roots: readonly string[], logger: Pick<Logger, "warn">): string[] {
  const unusable: string[] = [];
  for (const root of roots) {
    const problem = rootProblem(root);
    if (problem === undefined) continue;
    unusable.push(root);
    logger.warn(
      `allowed root ${root} ${problem}: file organization refuses every path under it until it is a folder (VETTED_ALLOWED_ROOTS)`,
      { root },
    );
  }
  return unusable;
}

/** The one line said when the server cannot listen. */
export function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  switch (err.code) {
    case "EADDRINUSE":
      return `vetted: cannot listen on ${where}: the address is already in use (EADDRINUSE); stop the other process or choose another PORT.`;
    case "EACCES":
      return `vetted: cannot listen on ${where}: permission denied (EACCES); choose a PORT above 1023.`;
    case "EADDRNOTAVAIL":
      return `vetted: cannot listen on ${where}: no such address on this machine (EADDRNOTAVAIL); check HOST.`;
    default:
      return `vetted: cannot listen on ${where}: ${err.message}`;
  }
}

/**
 * Listens on `host:port`; when that fails (port taken, no permission, unknown address) writes one line to
 * stderr naming `host:port` and ends the process with exit code 1 — no stack trace.
 */
export function listenOrExit(server: Server, port: number, host: string, onListening: () => void): void {
  const onError = (err: NodeJS.ErrnoException) => {
    process.stderr.write(`${listenFailure(err, host, port)}\n`);
    process.exit(1);
  };
  server.once("error", onError);
  server.listen(port, host, () => {
    server.off("error", onError);
    onListening();
  });
}
