import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { createFileorgEngine } from "../engine/engine.js";
import type { FileorgError } from "../errors.js";
import { createHarness, type Harness, snapshotTree, TEST_KEY, writeTree } from "./harness.js";

const LOCAL = { actor: "local" };

let h: Harness | undefined;
let replaced: Harness["engine"] | undefined;
afterEach(async () => {
  await replaced?.stop();
  replaced = undefined;
  await h?.close();
  h = undefined;
});

/** Swaps the harness's engine for one over the same database that protects `dataDir` and `extra`. */
async function protectingEngine(harness: Harness, dataDir: string, extra: readonly string[] = []) {
  await harness.engine.stop();
  replaced = createFileorgEngine({
    db: drizzle(harness.db.$client),
    allowedRoots: [harness.dir],
    journalKey: TEST_KEY,
    dataDir,
    protectedPaths: extra,
  });
  await replaced.start();
  harness.engine = replaced;
}

/**
 * A home folder whose data directory (hidden, as the server's default is) holds the database, its WAL and
 * shared-memory files, both key files and what runs write; a second database file sits outside it.
 */
function homeWithData(root: string) {
  const home = join(root, "home");
  const dataDir = join(home, ".vetted");
  writeTree(home, {
    "report.txt": "a report",
    "notes.md": "# notes",
    ".vetted/vetted.db": "sqlite",
    ".vetted/vetted.db-wal": "wal",
    ".vetted/vetted.db-shm": "shm",
    ".vetted/fileorg-journal.key": "journal key",
    ".vetted/runs-secrets.key": "secrets key",
    ".vetted/runs/run_1/shot.png": "png",
    "shared.db": "another database",
    "shared.db-wal": "its wal",
  });
  const extra = [join(home, "shared.db"), join(home, "shared.db-wal")];
  return { home, dataDir, extra };
}

async function analyzeAll(harness: Harness, home: string) {
  const job = await harness.engine.analyze({ source_dir: home, include_hidden: true }, LOCAL);
  expect(await harness.engine.waitForJob(job.job_id)).toMatchObject({ status: "succeeded" });
  return { job, rows: (await harness.engine.listRows(job.job_id, { limit: 500 })).items };
}

const isUnder = (root: string, path: string) => path === root || path.startsWith(`${root}/`);

describe("paths the engine never touches", () => {
  it("lists the data directory and database files as blocked rows with include_hidden, and apply leaves them", async () => {
    h = await createHarness({ start: false });
    const data = homeWithData(h.dir);
    await protectingEngine(h, data.dataDir, data.extra);
    const before = snapshotTree(data.dataDir);
    const { job, rows } = await analyzeAll(h, data.home);

    const guarded = rows.filter(
      (r) => isUnder(data.dataDir, r.source_path) || data.extra.includes(r.source_path),
    );
    // The data directory is one row (never descended into); each protected database file is one.
    expect(guarded.map((r) => r.source_path).sort()).toEqual([data.dataDir, ...data.extra].sort());
    for (const row of guarded) {
      expect(row).toMatchObject({
        action: "skip",
        review_bucket: "blocked",
        error: { code: "PROTECTED_PATH" },
      });
      expect(row.reason_codes).toContain("PROTECTED_PATH");
      expect(row.target_path).toBe(row.source_path);
    }
    expect(
      rows
        .filter((r) => r.action === "move")
        .map((r) => r.source_path)
        .sort(),
    ).toEqual([join(data.home, "notes.md"), join(data.home, "report.txt")].sort());
    expect((await h.engine.getJob(job.job_id)).result).toMatchObject({ protected_entries: 3 });

    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    expect(await h.engine.waitForJob(apply.job_id)).toMatchObject({
      status: "succeeded",
      result: { moved: 2 },
    });
    expect(snapshotTree(data.dataDir)).toEqual(before);
    for (const path of data.extra) expect(existsSync(path)).toBe(true);
    expect(existsSync(join(data.home, "report.txt"))).toBe(false);
  });

  it("refuses at apply to move the data files of a plan made before they were protected", async () => {
    h = await createHarness();
    const { home, dataDir, extra } = homeWithData(h.dir);
    const { job, rows } = await analyzeAll(h, home);
    // Without the setting, the data files were movable rows.
    expect(rows.filter((r) => r.action === "move" && isUnder(dataDir, r.source_path)).length).toBe(6);
    const before = snapshotTree(dataDir);
    const shared = readFileSync(join(home, "shared.db"), "utf8");
    await protectingEngine(h, dataDir, extra);

    // Every row named, the unreviewed ones too: none of the data files may move even so.
    const apply = await h.engine.apply({ job_id: job.job_id, buckets: ["auto_safe", "needs_review"] }, LOCAL);
    const done = await h.engine.waitForJob(apply.job_id);
    expect(done.result).toMatchObject({ moved: 2, failed: 8, by_error: { PROTECTED_PATH: 8 } });
    expect(snapshotTree(dataDir)).toEqual(before);
    expect(readFileSync(join(home, "shared.db"), "utf8")).toBe(shared);
    const failed = (await h.engine.listRows(job.job_id, { limit: 500 })).items.filter(
      (r) => r.error?.code === "PROTECTED_PATH",
    );
    expect(failed.every((r) => r.status === "failed")).toBe(true);
  });

  it("lists protected files of an inbox batch as blocked rows, never movable", async () => {
    h = await createHarness({ start: false });
    const { home, dataDir, extra } = homeWithData(h.dir);
    await protectingEngine(h, dataDir, extra);
    const files = [join(home, "report.txt"), join(dataDir, "vetted.db"), join(home, "shared.db")];
    const job = await h.engine.analyzeFiles({ source_dir: home, files }, LOCAL);
    expect(await h.engine.waitForJob(job.job_id)).toMatchObject({ status: "succeeded" });
    const rows = (await h.engine.listRows(job.job_id, { limit: 50 })).items;
    expect(rows.map((r) => [r.source_path, r.action, r.error?.code ?? null]).sort()).toEqual(
      [
        [join(home, "report.txt"), "move", null],
        [join(dataDir, "vetted.db"), "skip", "PROTECTED_PATH"],
        [join(home, "shared.db"), "skip", "PROTECTED_PATH"],
      ].sort(),
    );
  });

  it("refuses a source, output or edited target inside the data directory with PATH_PROTECTED", async () => {
    h = await createHarness({ start: false });
    const { home, dataDir } = homeWithData(h.dir);
    await protectingEngine(h, dataDir);
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "accepted",
        (err: FileorgError) => err.code,
      );
    expect(await code(h.engine.analyze({ source_dir: dataDir }, LOCAL))).toBe("PATH_PROTECTED");
    expect(await code(h.engine.analyze({ source_dir: join(dataDir, "runs") }, LOCAL))).toBe("PATH_PROTECTED");
    expect(
      await code(h.engine.analyze({ source_dir: home, output_dir: join(dataDir, "sorted") }, LOCAL)),
    ).toBe("PATH_PROTECTED");
    const { job, rows } = await analyzeAll(h, home);
    const report = rows.find((r) => r.source_path === join(home, "report.txt"));
    expect(
      await code(
        h.engine.editRow(
          job.job_id,
          report?.row_id ?? "",
          { target_path: join(dataDir, "vetted.db") },
          LOCAL,
        ),
      ),
    ).toBe("PATH_PROTECTED");
  });
});
