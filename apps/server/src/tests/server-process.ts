import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { buildsAreFresh, SERVER_BUILDS } from "../../../../tools/fresh-dist.js";

const SERVER_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** A server started as a real child process on an ephemeral loopback port. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and waits for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILLs the process (no cleanup runs) and waits for it to be gone. */
  kill(): Promise<void>;
}

/** Children still running; a test that forgot one must not leave a server behind after the run. */
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/**
 * How to start the server: its build when the workspace's builds are current (CI builds before it tests),
 * else `src/main.ts` through tsx with the `@vetted/source` condition (no build needed).
 */
export function serverCommand(): string[] {
  if (buildsAreFresh(SERVER_BUILDS)) return ["dist/main.js"];
  return ["--conditions=@vetted/source", "--import", "tsx", "src/main.ts"];
}

/**
 * Spawns the server (see {@link serverCommand}), binds port 0 on 127.0.0.1 and resolves once it prints its
 * address. Extra env is merged over the parent's; `as` runs it under another uid/gid.
 */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
  as: { uid?: number; gid?: number } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, serverCommand(), {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "warn",
      // Tests poll quickly; the rate-limit tests set their own limits.
      VETTED_RATE_LIMIT_PER_MINUTE: "1000000",
      VETTED_RATE_LIMIT_ANON_PER_MINUTE: "1000000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    ...as,
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  let stderr = "";
  let stdout = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with code ${code} before listening:\n${stderr}`));
    });
  });
  const exited = once(child, "exit");
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
}
