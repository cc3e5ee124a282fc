import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { bundledChild } from "../../../../tools/test-child.js";

const SCRIPT = fileURLToPath(new URL("./hold-write-lock.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** A second process holding a SQLite file's write lock: resolves once it holds it. */
export interface LockHolder {
  child: ChildProcess;
  /** Resolves when the holder has committed and exited. */
  released: Promise<unknown>;
}

/** Starts {@link SCRIPT} on `file` for `ms` and waits until it holds the write lock. */
export async function holdWriteLock(file: string, ms: number): Promise<LockHolder> {
  // A real second process, from a bundle of the script (node alone: no TypeScript loader to start).
  const child = spawn(process.execPath, [await bundledChild(PACKAGE_DIR, SCRIPT), file, String(ms)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const released = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("locked")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return { child, released };
}
