import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import { createHarness, type Harness, writeTree } from "./harness.js";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Starts a child engine process (a bundle of `claim-child.ts`, its file threads' module beside it: node alone,
 * no TypeScript loader in the process or its threads); resolves once it is ready, with a promise of its exit.
 */
async function startChild(h: Harness, goFile: string) {
  const script = await bundledChild(PACKAGE_DIR, join(PACKAGE_DIR, "src", "tests", "claim-child.ts"), {
    "inspect-worker": join(PACKAGE_DIR, "src", "engine", "readers", "worker.ts"),
  });
  const child = spawn(process.execPath, [script, h.dbPath, h.dir, goFile], {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
      if (stdout.includes("ready")) resolve();
    });
    void exited.then(() => reject(new Error(`child exited before it was ready:\n${stderr}`)));
  });
  return { exited };
}

describe("two server processes on one database file", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("run every queued job exactly once between them", async () => {
    h = await createHarness({ start: false });
    const jobIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      writeTree(h.dir, { [`in${i}/a.txt`]: `a${i}`, [`in${i}/b.txt`]: `b${i}` });
      jobIds.push((await h.engine.analyze({ source_dir: join(h.dir, `in${i}`) }, { actor: "test" })).job_id);
    }
    const goFile = join(h.dir, "go");
    const children = [await startChild(h, goFile), await startChild(h, goFile)];
    writeFileSync(goFile, "");
    const ends = await Promise.all(children.map((c) => c.exited));
    for (const end of ends) expect([end.code, end.stderr]).toEqual([0, ""]);
    // Each process counts the jobs it claimed: together, each job exactly once.
    const started = ends.map((end) => Number(/started (\d+)/.exec(end.stdout)?.[1] ?? Number.NaN));
    expect(started.reduce((a, b) => a + b, 0)).toBe(jobIds.length);
    for (const id of jobIds) {
      const job = await h.engine.getJob(id);
      expect([id, job.status, job.error]).toEqual([id, "succeeded", null]);
      const log = await h.engine.listEvents(id);
      expect(log.items.filter((e) => e.type === "started")).toHaveLength(1);
      expect(log.items.filter((e) => e.type === "finished")).toHaveLength(1);
    }
  }, 120_000);
});
