import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseTrashInfo } from "../domain/trash-info.js";
import { createComposedHarness, createHarness, type Harness, snapshotTree, writeTree } from "./harness.js";

let h: Harness | undefined;
const scratches: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder (on the same device as the harness's) that holds a test trash. */
function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-trash-")));
  scratches.push(dir);
  return dir;
}

const LOCAL = { actor: "local", requestId: "req-trash" };

async function analyze(harness: Harness, src: string, out: string, extra: Record<string, unknown> = {}) {
  const job = await harness.engine.analyze({ source_dir: src, output_dir: out, ...extra }, LOCAL);
  const done = await harness.engine.waitForJob(job.job_id);
  expect(done.status).toBe("succeeded");
  return job.job_id;
}

/** The entries of a trash: each file in `files/` with the parsed `.trashinfo` of the same name. */
function trashEntries(trash: string) {
  const files = existsSync(join(trash, "files")) ? readdirSync(join(trash, "files")).sort() : [];
  const infos = existsSync(join(trash, "info")) ? readdirSync(join(trash, "info")).sort() : [];
  return {
    files,
    infos,
    parsed: files.map((name) => ({
      name,
      info: parseTrashInfo(readFileSync(join(trash, "info", `${name}.trashinfo`), "utf8")),
      content: readFileSync(join(trash, "files", name), "utf8"),
    })),
  };
}

/** Analyzes a tree with three copies of one file and resolves its duplicate group by trashing the copies. */
async function trashCopies(harness: Harness, src: string, out: string) {
  const jobId = await analyze(harness, src, out);
  const dup = (await harness.engine.listConflicts(jobId, { status: "open" })).items.find(
    (c) => c.kind === "duplicate_content",
  );
  expect(dup).toBeDefined();
  const resolved = await harness.engine.resolveConflicts(
    jobId,
    { resolutions: [{ conflict_id: dup?.conflict_id ?? "", strategy: "move_to_trash" }] },
    LOCAL,
  );
  expect(resolved.conflicts[0]).toMatchObject({ status: "resolved", resolution: "move_to_trash" });
  expect((await harness.engine.listConflicts(jobId, { status: "open" })).items).toEqual([]);
  return { jobId, original: dup?.original };
}

describe("trash the copies of a duplicate group", () => {
  it("moves every copy but the original into the home trash with a .trashinfo, and rollback restores every path and hash", async () => {
    // XDG_DATA_HOME is honoured: the home trash is $XDG_DATA_HOME/Trash.
    const dataHome = scratch();
    const home = join(dataHome, "Trash");
    h = await createHarness({ env: { XDG_DATA_HOME: dataHome } });
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, {
      "Desktop/Copy of report.txt": "same bytes",
      "Documents/report.txt": "same bytes",
      "Downloads/report (1).txt": "same bytes",
      "other.txt": "other",
    });
    const before = snapshotTree(src);
    const { jobId, original } = await trashCopies(h, src, out);
    expect(original?.row_id).toBeDefined();
    const rows = (await h.engine.listRows(jobId)).items;
    const trashed = rows.filter((r) => r.action === "trash").map((r) => r.source_path);
    expect(trashed.sort()).toEqual([
      join(src, "Desktop/Copy of report.txt"),
      join(src, "Downloads/report (1).txt"),
    ]);

    const applied = await h.engine.waitForJob((await h.engine.apply({ job_id: jobId }, LOCAL)).job_id);
    expect(applied.result?.by_error).toEqual({});
    expect(applied.result).toMatchObject({ moved: 4, failed: 0 });
    expect(existsSync(join(src, "Documents"))).toBe(false);
    expect(readFileSync(join(out, "documents/2023/report.txt"), "utf8")).toBe("same bytes");
    const entries = trashEntries(home);
    expect(entries.files).toEqual(["Copy of report.txt", "report (1).txt"]);
    expect(entries.infos).toEqual(["Copy of report.txt.trashinfo", "report (1).txt.trashinfo"]);
    for (const e of entries.parsed) {
      expect(e.content).toBe("same bytes");
      expect(e.info?.deletionDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(trashed).toContain(e.info?.path);
    }
    // Percent-encoded, absolute for the home trash.
    expect(readFileSync(join(home, "info", "Copy of report.txt.trashinfo"), "utf8")).toContain(
      `Path=${src.replaceAll(" ", "%20")}/Desktop/Copy%20of%20report.txt\n`,
    );
    expect(statSync(join(home, "info")).mode & 0o777).toBe(0o700);

    const rolled = await h.engine.waitForJob(
      (await h.engine.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 4, failed: 0 });
    expect(snapshotTree(src)).toEqual(before);
    expect(trashEntries(home)).toMatchObject({ files: [], infos: [] });
  });

  it("gives a name already in the trash a unique name, never overwriting the entry there", async () => {
    const home = join(scratch(), "Trash");
    h = await createHarness({ trashDir: home });
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "a/photo.txt": "same", "b/photo.txt": "same" });
    writeTree(home, {
      "files/photo.txt": "someone's earlier trash",
      "info/photo.txt.trashinfo":
        "[Trash Info]\nPath=/elsewhere/photo.txt\nDeletionDate=2020-01-01T00:00:00\n",
      "info/photo.2.txt.trashinfo":
        "[Trash Info]\nPath=/elsewhere/photo.2.txt\nDeletionDate=2020-01-01T00:00:00\n",
    });
    const { jobId } = await trashCopies(h, src, out);
    const copy = (await h.engine.listRows(jobId)).items.find((r) => r.action === "trash");
    const applied = await h.engine.waitForJob((await h.engine.apply({ job_id: jobId }, LOCAL)).job_id);
    expect(applied.result).toMatchObject({ moved: 2, failed: 0 });
    expect(readFileSync(join(home, "files/photo.txt"), "utf8")).toBe("someone's earlier trash");
    expect(readFileSync(join(home, "info/photo.txt.trashinfo"), "utf8")).toContain(
      "Path=/elsewhere/photo.txt",
    );
    expect(readFileSync(join(home, "files/photo.3.txt"), "utf8")).toBe("same");
    const info = parseTrashInfo(readFileSync(join(home, "info/photo.3.txt.trashinfo"), "utf8"));
    expect(info?.path).toBe(copy?.source_path);

    const rolled = await h.engine.waitForJob(
      (await h.engine.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 2, failed: 0 });
    expect(readFileSync(copy?.source_path ?? "", "utf8")).toBe("same");
    // The earlier entries stay; ours is gone.
    expect(readdirSync(join(home, "info")).sort()).toEqual(["photo.2.txt.trashinfo", "photo.txt.trashinfo"]);
    expect(readdirSync(join(home, "files"))).toEqual(["photo.txt"]);
  });
});

const TRASH_RULES = `version: 1
rules:
  - name: Copies go to the trash
    filters: { duplicate: copy }
    actions: { trash: true }
`;

describe("a rules file with trash: true", () => {
  it("marks the matching rows trash; apply trashes them and rollback restores them", async () => {
    const home = join(scratch(), "Trash");
    const composed = await createComposedHarness({ trashDir: home });
    h = composed;
    const { fileorg, review } = composed;
    const src = join(composed.dir, "src");
    const out = join(composed.dir, "out");
    writeTree(src, { "readme.txt": "same text", "Copy of readme.txt": "same text", "notes.md": "# notes\n" });
    const before = snapshotTree(src);
    const jobId = await analyze(h, src, out);
    const run = await review.runRulesFile(jobId, TRASH_RULES, LOCAL);
    expect(run.rules.map((r) => [r.name, r.matched, r.changed])).toEqual([["Copies go to the trash", 1, 1]]);
    const rows = new Map(
      (await fileorg.listRows(jobId)).items.map((r) => [r.source_path.slice(src.length + 1), r]),
    );
    expect(rows.get("Copy of readme.txt")?.action).toBe("trash");
    expect(rows.get("readme.txt")?.action).toBe("move");
    expect((await fileorg.listConflicts(jobId, { status: "open" })).items).toEqual([]);

    const applied = await fileorg.waitForJob((await fileorg.apply({ job_id: jobId }, LOCAL)).job_id);
    expect(applied.result).toMatchObject({ moved: 3, failed: 0 });
    const entries = trashEntries(home);
    expect(entries.files).toEqual(["Copy of readme.txt"]);
    expect(entries.parsed[0]?.info?.path).toBe(join(src, "Copy of readme.txt"));

    const rolled = await fileorg.waitForJob(
      (await fileorg.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 3, failed: 0 });
    expect(snapshotTree(src)).toEqual(before);
    expect(trashEntries(home)).toMatchObject({ files: [], infos: [] });
  });
});
