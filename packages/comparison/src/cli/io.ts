import process from "node:process";

/** Exit codes of the CLI: 0 ok, 1 findings (an invalid document), 2 usage or environment error. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** The program name usage lines show unless the caller names another. */
export const DEFAULT_PROGRAM_NAME = "vetted-comparison";

/** Where the CLI reads its environment and input and writes its output; the bin passes the real process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Reads all of standard input, for a `-` file argument; without it, `-` is an unreadable input. */
  readonly readStdin?: () => Promise<string>;
  /** The name usage lines show: `vetted-comparison` by default, e.g. `vetted comparison` for an alias. */
  readonly programName?: string;
}

async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY === true) {
    throw new Error("standard input is a terminal; pipe a document into -");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/** The real process as a {@link CliIo}: its working folder, environment, stdout, stderr and stdin. */
export function createProcessIo(programName: string = DEFAULT_PROGRAM_NAME): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: readProcessStdin,
    programName,
  };
}
