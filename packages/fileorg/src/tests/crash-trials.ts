import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { and, eq } from "drizzle-orm";
import { bundledChild } from "../../../../tools/test-child.js";
import { parseTrashInfo } from "../domain/trash-info.js";
import { journal } from "../store/schema.js";
import { createHarness, type Harness, snapshotTree, writeTree } from "./harness.js";

const CHILD = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
/** The file threads' entry: a bundle starts it from beside itself, as the package's build does. */
const READER_WORKER = fileURLToPath(new URL("../engine/readers/worker.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The child bundled once per test process (dependencies external, resolved from the package; the workspace's
 * own packages bundled from their sources, as they may not be built), with its file threads' module beside it,
 * so each trial starts a plain `node` process instead of paying for a TypeScript loader: trials stay fast and light.
 */
function bundleChild(): Promise<string> {
  return bundledChild(PACKAGE_DIR, CHILD, { "inspect-worker": READER_WORKER });
}
/** Marks every third row of the manifest `trash` or `copy` (a person's edit: apply takes it by default). */
async function markAction(harness: Harness, manifestId: string, action: "trash" | "copy"): Promise<void> {
  const rows = [];
  let cursor: string | undefined;
  do {
    const page = await harness.engine.listRows(manifestId, { limit: 1000, cursor });
    rows.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  const operations = rows.filter((_, i) => i % 3 === 0).map((r) => ({ row_id: r.row_id, patch: { action } }));
  await harness.engine.applyPatches(manifestId, operations, { actor: "test" });
}

/**
 * The trash after recovery: every entry in `files/` is a trashed row's with an info naming its source, and
 * every info has its file (no orphan left by a kill between the info and the move).
 */
function trashProblems(trashDir: string, trashedTo: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const list = (sub: string) => (existsSync(join(trashDir, sub)) ? readdirSync(join(trashDir, sub)) : []);
  const files = list("files").filter((n) => !n.includes(".vetted-tmp-"));
  const infos = list("info");
  const expected = new Set([...trashedTo.values()].map((p) => p.slice(trashDir.length + "/files/".length)));
  for (const name of files) {
    if (!expected.has(name)) problems.push(`trash file ${name} is no journaled trash move`);
    const info = join(trashDir, "info", `${name}.trashinfo`);
    if (!existsSync(info) || parseTrashInfo(readFileSync(info, "utf8")) === undefined)
      problems.push(`trash file ${name} has no valid .trashinfo`);
  }
  for (const info of infos) {
    if (!files.includes(info.replace(/\.trashinfo$/, ""))) problems.push(`orphan trash info ${info}`);
  }
  if (files.length !== expected.size)
    problems.push(`${expected.size} journaled trash moves, ${files.length} files`);
  return problems;
}

/**
 * A copy row after recovery: the source is always there with its hash; the target is either absent or a
 * whole copy with the same hash, exactly when the copy is journaled done and the row applied.
 */
function copyProblems(
  row: { row_id: string; source_path: string; target_path: string; sha256: string | null; status: string },
  journaled: boolean,
) {
  const problems: string[] = [];
  if (!existsSync(row.source_path)) problems.push(`${row.row_id}: a copy's source is gone`);
  else if (sha(row.source_path) !== row.sha256) problems.push(`${row.row_id}: a copy's source changed`);
  const atTarget = existsSync(row.target_path);
  if (atTarget && sha(row.target_path) !== row.sha256)
    problems.push(`${row.row_id}: a partial or wrong copy at ${row.target_path}`);
  if (atTarget !== journaled)
    problems.push(`${row.row_id}: copy at target ${atTarget}, journaled ${journaled}`);
  if (atTarget !== (row.status === "applied"))
    problems.push(`${row.row_id}: copy at target ${atTarget}, status ${row.status}`);
  return { problems, atTarget };
}

const EXTS = ["txt", "md", "csv", "json", "py", "html", "log", "zzz"];

/** A tree of `n` small, distinct files spread over a few folders and categories. */
export function crashTree(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++)
    files[`d${i % 7}/sub${i % 3}/file-${i}.${EXTS[i % EXTS.length]}`] = `content of file ${i}\n`;
  return files;
}

/** What one trial saw. */
export interface TrialOutcome {
  killedAfterMs: number;
  /** The job was still running when the kill landed. */
  interrupted: boolean;
  appliedBeforeRecovery: number;
  problems: string[];
}

/** A crash-test bench: a tree, its manifest, and how to run a trial. */
export interface CrashBench {
  harness: Harness;
  /** Runs one trial; the kill moment is random within a window that adapts to how long an apply takes. */
  trial(): Promise<TrialOutcome>;
  close(): Promise<void>;
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

function findTempFiles(dir: string): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.name.includes(".vetted-tmp-")) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

/** Builds the bench: `files` files analyzed once; every trial applies them in a child, kills it, recovers, checks, rolls back. */
export async function createCrashBench(
  files: number,
  forceCopy = false,
  trash = false,
  copy = false,
): Promise<CrashBench> {
  // With `trash`, every third row is trashed (into a test trash, on the same device as the tree).
  const trashDir = trash
    ? join(realpathSync(mkdtempSync(join(tmpdir(), "fileorg-crash-trash-"))), "Trash")
    : "";
  const harness = await createHarness({ start: false, forceCopy, ...(trash ? { trashDir } : {}) });
  const src = join(harness.dir, "src");
  const out = join(harness.dir, "out");
  writeTree(src, crashTree(files));
  const original = snapshotTree(src);
  await harness.engine.start();
  const analyze = await harness.engine.analyze({ source_dir: src, output_dir: out }, { actor: "test" });
  const analyzed = await harness.engine.waitForJob(analyze.job_id, 60_000);
  if (analyzed.status !== "succeeded") throw new Error(`analyze ${analyzed.status}`);
  if (trash || copy) await markAction(harness, analyze.job_id, trash ? "trash" : "copy");
  await harness.engine.stop();
  const manifestId = analyze.job_id;
  const childScript = await bundleChild();

  let windowMs = 300;
  async function trial(): Promise<TrialOutcome> {
    const maxDelayMs = windowMs;
    const problems: string[] = [];
    const child = spawn(
      process.execPath,
      [childScript, harness.dbPath, harness.dir, manifestId, forceCopy ? "copy" : "link", trashDir],
      {
        cwd: PACKAGE_DIR,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const applyId = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        const m = /applying (\S+)/.exec(stdout);
        if (m?.[1] !== undefined) resolve(m[1]);
      });
      void exited.then(() => reject(new Error(`child exited before applying:\n${stderr}`)));
    });
    const killedAfterMs = Math.floor(Math.random() * maxDelayMs);
    await new Promise((r) => setTimeout(r, killedAfterMs));
    const interrupted = !stdout.includes("finished");
    child.kill("SIGKILL");
    await exited;

    const { engine } = harness;
    await engine.recover();
    let job = await engine.getJob(applyId);
    if (job.status === "queued") job = await engine.cancel(applyId, { actor: "test" });
    if (!["failed", "succeeded", "cancelled"].includes(job.status)) problems.push(`job left ${job.status}`);
    if (interrupted && job.status === "failed" && job.error?.code !== "INTERRUPTED") {
      problems.push(`unexpected error ${job.error?.code}`);
    }
    const temps = [...findTempFiles(out), ...(trash ? findTempFiles(trashDir) : [])];
    if (temps.length > 0) problems.push(`temp files left: ${temps.join(", ")}`);
    const intents = await harness.db
      .select()
      .from(journal)
      .where(and(eq(journal.jobId, applyId), eq(journal.state, "intent")));
    if (intents.length > 0) problems.push(`${intents.length} journal intents left open`);
    const doneRecords = await harness.db
      .select({ rowId: journal.rowId, op: journal.op, toPath: journal.toPath })
      .from(journal)
      .where(and(eq(journal.jobId, applyId), eq(journal.state, "done")));
    const doneMoves = new Set(
      doneRecords.flatMap((r) =>
        (r.op === "move" || r.op === "trash" || r.op === "copy") && r.rowId !== null ? [r.rowId] : [],
      ),
    );
    // Where each trashed row's file went: its target is that trash entry.
    const trashedTo = new Map(
      doneRecords.flatMap((r) => (r.op === "trash" ? [[r.rowId ?? "", r.toPath]] : [])),
    );
    if (trash) problems.push(...trashProblems(trashDir, trashedTo));
    let applied = 0;
    let cursor: string | undefined;
    do {
      const page = await engine.listRows(manifestId, { limit: 1000, cursor });
      for (const row of page.items) {
        if (row.action === "copy") {
          const copied = copyProblems(row, doneMoves.has(row.row_id));
          problems.push(...copied.problems);
          if (copied.atTarget) applied++;
          continue;
        }
        const target = row.action === "trash" ? (trashedTo.get(row.row_id) ?? "") : row.target_path;
        const atSource = existsSync(row.source_path);
        const atTarget = target !== "" && existsSync(target);
        if (atSource === atTarget) {
          problems.push(`${row.row_id}: at source ${atSource}, at target ${atTarget}`);
          continue;
        }
        const where = atSource ? row.source_path : target;
        if (sha(where) !== row.sha256) problems.push(`${row.row_id}: hash differs at ${where}`);
        const journaled = doneMoves.has(row.row_id);
        if (atTarget !== journaled)
          problems.push(`${row.row_id}: at target ${atTarget} but journaled ${journaled}`);
        if (atTarget !== (row.status === "applied"))
          problems.push(`${row.row_id}: at target ${atTarget}, status ${row.status}`);
        if (atTarget) applied++;
        if (row.status === "failed") problems.push(`${row.row_id}: failed with ${row.error?.code}`);
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);

    await engine.start();
    const rollback = await engine.rollback({ job_id: applyId }, { actor: "test" });
    const rolled = await engine.waitForJob(rollback.job_id, 60_000);
    await engine.stop();
    if (rolled.status !== "succeeded" || Number(rolled.result?.failed ?? 0) > 0) {
      problems.push(`rollback ${rolled.status} ${JSON.stringify(rolled.result)}`);
    }
    const after = snapshotTree(src);
    if (JSON.stringify(after) !== JSON.stringify(original))
      problems.push("the source tree differs after rollback");
    if (existsSync(out)) problems.push(`leftover output directory: ${JSON.stringify(snapshotTree(out))}`);
    const trashLeft = trash && existsSync(trashDir) ? Object.keys(snapshotTree(trashDir).files) : [];
    if (trashLeft.length > 0) problems.push(`leftover trash entries: ${trashLeft.join(", ")}`);
    // Aim the next kill: shrink the window when the apply had already finished, widen it when nothing moved.
    if (!interrupted || applied === files) windowMs = Math.max(20, windowMs * 0.7);
    else if (applied === 0) windowMs = Math.min(5000, windowMs * 1.4);
    return { killedAfterMs, interrupted, appliedBeforeRecovery: applied, problems };
  }

  return {
    harness,
    trial,
    async close() {
      await harness.close();
      if (trash) rmSync(dirname(trashDir), { recursive: true, force: true });
    },
  };
}
