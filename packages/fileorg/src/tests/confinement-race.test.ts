import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, snapshotTree, writeTree } from "./harness.js";

const LOCAL = { actor: "local" };
const MTIME = new Date("2024-03-04T10:00:00Z");
const EXCHANGER = fileURLToPath(new URL("./exchange-names.py", import.meta.url));

let h: Harness | undefined;
let outside: string | undefined;
let exchanger: ChildProcess | undefined;
afterEach(async () => {
  if (exchanger !== undefined && exchanger.exitCode === null) {
    exchanger.kill("SIGKILL");
    await once(exchanger, "exit");
  }
  exchanger = undefined;
  await h?.close();
  h = undefined;
  if (outside !== undefined) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

/** Starts the exchange loop of two names (renameat2 RENAME_EXCHANGE in python3 + ctypes); resolves once it runs. */
async function startExchanging(first: string, second: string): Promise<() => Promise<string>> {
  const child = spawn("python3", [EXCHANGER, first, second], { stdio: ["ignore", "pipe", "pipe"] });
  exchanger = child;
  let output = "";
  let errors = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    errors += chunk;
  });
  const exited = once(child, "exit");
  exited.catch(() => undefined); // a spawn error rejects the start below
  // python3 is on the machines (see the env docs); without it the test fails here, it does not skip.
  await new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", () => reject(new Error(`the exchange loop did not start: ${errors}`)));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("ready")) resolve();
    });
  });
  return async () => {
    child.kill("SIGTERM");
    const [code] = await exited;
    if (code !== 0) throw new Error(`the exchange loop failed (${code}): ${errors}`);
    return output;
  };
}

/** Every regular file under `root` (symlinks are not followed), with its link count. */
function filesUnder(root: string): Array<{ path: string; nlink: number }> {
  const found: Array<{ path: string; nlink: number }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push({ path, nlink: lstatSync(path).nlink });
    }
  };
  walk(root);
  return found;
}

// Enough files that apply's moves overlap thousands of exchanges (each run of the unguarded layer linked
// files outside), few enough for a loaded 2-core machine; the copy path fsyncs each file, so fewer.
describe.runIf(process.platform === "linux").each([
  ["on the file threads (hard link + unlink)", false, 1000],
  ["on the copy path (copy + verify + link)", true, 300],
])("apply and rollback against a racing symlink swap, %s", (_name, forceCopy, FILES) => {
  it("never links a file outside the roots while a target folder and a symlink to an outside folder keep exchanging names", async () => {
    h = await createHarness({ forceCopy });
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) files[`f${String(i).padStart(4, "0")}.txt`] = `file ${i}\n`;
    writeTree(src, files, MTIME);
    const before = snapshotTree(src);
    outside = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-race-outside-")));
    const year = join(out, "documents", "2024");
    const swap = join(out, "documents", "swp");
    mkdirSync(year, { recursive: true });
    symlinkSync(outside, swap);

    const job = await h.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const stop = await startExchanging(year, swap);
    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    const applied = await h.engine.waitForJob(apply.job_id);
    const loop = await stop();
    expect(loop).toMatch(/stopped \d+/);
    expect(lstatSync(year).isDirectory()).toBe(true);

    const escaped = filesUnder(outside);
    const inside = [...filesUnder(src), ...filesUnder(out)];
    const twoNames = inside.filter((f) => f.nlink !== 1);
    expect({ escaped: escaped.length, twoNames: twoNames.length, inside: inside.length }).toEqual({
      escaped: 0,
      twoNames: 0,
      inside: FILES,
    });
    // The race really ran into the moves: some moved, and every file is either moved or left at its source.
    const moved = Number(applied.result?.moved);
    expect(moved).toBeGreaterThan(0);
    expect(filesUnder(year).length).toBe(moved);

    const rollback = await h.engine.rollback({ job_id: apply.job_id }, LOCAL);
    const undone = await h.engine.waitForJob(rollback.job_id);
    expect(undone.result).toMatchObject({ moved_back: moved, failed: 0 });
    expect(snapshotTree(src).files).toEqual(before.files);
    expect(filesUnder(out)).toEqual([]);
    expect(filesUnder(outside)).toEqual([]);
  }, 60_000);
});
