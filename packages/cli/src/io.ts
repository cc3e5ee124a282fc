import type { Readable, Writable } from "node:stream";

/** Where a command reads its environment and writes its output; the bin passes the real process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable & { isTTY?: boolean };
}

/** The real process as a {@link CliIo}. */
export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  };
}

/** True when output goes to a terminal (progress bars, prompts). */
export function isInteractive(io: CliIo): boolean {
  return io.stdout.isTTY === true;
}

/** True when colours may be used: on a terminal, and never when `NO_COLOR` is set (and not empty). */
export function colorsEnabled(io: CliIo): boolean {
  const noColor = io.env.NO_COLOR;
  return io.stdout.isTTY === true && (noColor === undefined || noColor === "");
}

/** Writes a line to stdout. */
export function say(io: CliIo, text = ""): void {
  io.stdout.write(`${text}\n`);
}
