import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, writeTree } from "./harness.js";

const LOCAL = { actor: "local" };
const MTIME = new Date("2026-03-04T10:00:00Z");

let h: Harness | undefined;
let outside: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (outside !== undefined) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

/** A folder outside the harness's allowed roots (the harness allows only its own temp directory). */
function outsideFolder(): string {
  outside = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-outside-")));
  return outside;
}

async function analyze(harness: Harness, src: string, out: string): Promise<string> {
  const job = await harness.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
  await harness.engine.waitForJob(job.job_id);
  return job.job_id;
}

async function applyAll(harness: Harness, jobId: string) {
  const apply = await harness.engine.apply({ job_id: jobId }, LOCAL);
  const done = await harness.engine.waitForJob(apply.job_id);
  const rows = (await harness.engine.listRows(jobId, { limit: 100 })).items;
  return { apply: done, rows };
}

describe.each([
  ["on the file threads (hard link + unlink)", false],
  ["on the copy path (copy + verify + link)", true],
])("apply confinement, %s", (_name, forceCopy) => {
  it("leaves an outside file with the same name, size and mtime alone when a source folder becomes a symlink to it", async () => {
    h = await createHarness({ forceCopy });
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "sub/report.txt": "inside!", "top.txt": "top" }, MTIME);
    const jobId = await analyze(h, src, out);
    const away = outsideFolder();
    writeTree(away, { "report.txt": "OUTSIDE" }, MTIME); // same name, same size, same mtime
    rmSync(join(src, "sub"), { recursive: true });
    symlinkSync(away, join(src, "sub"));

    const { apply, rows } = await applyAll(h, jobId);
    const swapped = rows.find((r) => r.source_path === join(src, "sub", "report.txt"));
    expect(["OUTSIDE_ROOT", "SOURCE_CHANGED"]).toContain(swapped?.error?.code);
    expect(swapped?.status).toBe("failed");
    expect(apply.result).toMatchObject({ moved: 1, failed: 1 });
    expect(readFileSync(join(away, "report.txt"), "utf8")).toBe("OUTSIDE");
    expect(Math.trunc(statSync(join(away, "report.txt")).mtimeMs)).toBe(MTIME.getTime());
    expect(existsSync(swapped?.target_path ?? "")).toBe(false);
  });

  it("refuses OUTSIDE_ROOT when the outside file even is the very inode analyzed (a hard link outside)", async () => {
    h = await createHarness({ forceCopy });
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "sub/report.txt": "inside!" }, MTIME);
    const away = outsideFolder();
    // The same inode under an outside name, made before analyze: its identity matches exactly.
    linkSync(join(src, "sub", "report.txt"), join(away, "report.txt"));
    const jobId = await analyze(h, src, out);
    renameSync(join(src, "sub"), join(h.dir, "parked"));
    symlinkSync(away, join(src, "sub"));

    const { rows } = await applyAll(h, jobId);
    expect(rows[0]?.error?.code).toBe("OUTSIDE_ROOT");
    expect(readdirSync(away)).toEqual(["report.txt"]);
    expect(readFileSync(join(away, "report.txt"), "utf8")).toBe("inside!");
    expect(existsSync(rows[0]?.target_path ?? "")).toBe(false);
  });

  it("refuses SOURCE_CHANGED when the file was replaced in place by another with the same size and mtime", async () => {
    h = await createHarness({ forceCopy });
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "a.txt": "original" }, MTIME);
    const jobId = await analyze(h, src, out);
    rmSync(join(src, "a.txt"));
    writeFileSync(join(src, "a.txt"), "imposter");
    utimesSync(join(src, "a.txt"), MTIME, MTIME);

    const { apply, rows } = await applyAll(h, jobId);
    expect(rows[0]).toMatchObject({ status: "failed", error: { code: "SOURCE_CHANGED" } });
    expect(apply.result).toMatchObject({ moved: 0, failed: 1, by_error: { SOURCE_CHANGED: 1 } });
    expect(readFileSync(join(src, "a.txt"), "utf8")).toBe("imposter");
    expect(existsSync(rows[0]?.target_path ?? "")).toBe(false);
  });

  it("refuses SOURCE_CHANGED when the content was rewritten in place and the mtime put back", async () => {
    h = await createHarness({ forceCopy });
    const src = join(h.dir, "src");
    writeTree(src, { "a.txt": "original" }, MTIME);
    const jobId = await analyze(h, src, join(h.dir, "out"));
    writeFileSync(join(src, "a.txt"), "rewrite!"); // same inode, same size
    utimesSync(join(src, "a.txt"), MTIME, MTIME);

    const { rows } = await applyAll(h, jobId);
    expect(rows[0]).toMatchObject({ status: "failed", error: { code: "SOURCE_CHANGED" } });
    expect(readFileSync(join(src, "a.txt"), "utf8")).toBe("rewrite!");
  });
});

describe("rollback confinement", () => {
  it("leaves an outside folder alone when a folder apply created is swapped for a symlink to it", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "letter.txt": "dear" }, MTIME);
    mkdirSync(out);
    const jobId = await analyze(h, src, out);
    const { apply } = await applyAll(h, jobId);
    expect(apply.result).toMatchObject({ moved: 1 });
    expect(existsSync(join(out, "documents", "2026", "letter.txt"))).toBe(true);

    const away = outsideFolder();
    mkdirSync(join(away, "2026"));
    renameSync(join(out, "documents"), join(h.dir, "parked"));
    symlinkSync(away, join(out, "documents"));

    const rollback = await h.engine.rollback({ job_id: apply.job_id }, LOCAL);
    const done = await h.engine.waitForJob(rollback.job_id);
    expect(done.result).toMatchObject({ moved_back: 0, failed: 1, directories_removed: 0 });
    expect(done.result?.by_error).toEqual({ OUTSIDE_ROOT: 1 });
    expect(statSync(join(away, "2026")).isDirectory()).toBe(true);
    expect(readFileSync(join(h.dir, "parked", "2026", "letter.txt"), "utf8")).toBe("dear");
  });
});
