import { type ChildProcess, spawn } from "node:child_process";

/** Strips terminal escape sequences, so prompts can be matched as text. */
export function plainText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");
}

/** Single quotes for a POSIX shell. */
function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A process running in a pseudo-terminal (util-linux `script`), driven by keystrokes. */
export interface Terminal {
  /** Everything written so far, raw (escape sequences included). */
  output(): string;
  /**
   * Waits until the plain text written after the last match matches; answers that text. Throws after
   * `timeoutMs`.
   */
  expect(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends keystrokes. */
  send(keys: string): void;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  child: ChildProcess;
}

/** Keys as a terminal sends them. */
export const KEY = { up: "\x1b[A", down: "\x1b[B", enter: "\r", space: " ", ctrlC: "\x03" } as const;

/**
 * Runs `argv` inside a pseudo-terminal through `script -qfec` (util-linux, on every Debian), sized 160×50,
 * with `env`. No native addon is needed.
 */
export function openTerminal(argv: readonly string[], env: Record<string, string>, cwd: string): Terminal {
  const command = `stty cols 160 rows 50; exec ${argv.map(shellQuote).join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TERM: "xterm-256color", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  let consumed = 0;
  const waiters = new Set<() => void>();
  const onData = (chunk: string) => {
    raw += chunk;
    for (const wake of waiters) wake();
  };
  child.stdout?.setEncoding("utf8").on("data", onData);
  child.stderr?.setEncoding("utf8").on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => raw,
    send: (keys) => child.stdin?.write(keys),
    expect(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const text = plainText(raw).slice(consumed);
          const match = pattern.exec(text);
          if (match === null) return false;
          // Later output (a next prompt arriving in the same chunk) stays for the next expect.
          consumed += match.index + match[0].length;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(text);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out waiting for ${pattern}; the terminal shows:\n${plainText(raw).slice(consumed)}`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
  };
}
