import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import type { ConflictList, Job, JobEventList, ManifestPage } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const WHEN = new Date("2024-03-04T05:06:07Z");

async function call<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === "" ? {} : JSON.parse(text)) as T };
}

async function waitFor(jobId: string): Promise<Job> {
  for (let i = 0; i < 400; i++) {
    const { body } = await call<Job>("GET", `/api/jobs/${jobId}`);
    if (["succeeded", "failed", "cancelled"].includes(body.status)) return body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not finish`);
}

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    utimesSync(p, WHEN, WHEN);
  }
}

/** Every folder and file under `root` (relative; folders end with `/`), sorted. */
function tree(root: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .map((e) => relative(root, join(e.parentPath, e.name)) + (e.isDirectory() ? "/" : ""))
    .sort();
}

async function analyze(src: string, out: string): Promise<string> {
  const queued = await call<Job>("POST", "/api/jobs/analyze", { source_dir: src, output_dir: out });
  expect(queued.status).toBe(202);
  expect((await waitFor(queued.body.job_id)).status).toBe("succeeded");
  return queued.body.job_id;
}

async function apply(jobId: string): Promise<Job> {
  const queued = await call<Job>("POST", "/api/jobs/apply", { job_id: jobId });
  expect(queued.status).toBe(202);
  return waitFor(queued.body.job_id);
}

describe("tidy apply over HTTP", () => {
  it("removes the source folders apply emptied and rollback restores them", async () => {
    t = await createTestApp();
    const src = join(t.dir, "messy");
    const out = join(t.dir, "sorted");
    write(src, {
      "2019 trip/day 1/notes.txt": "day one",
      "2019 trip/readme.md": "# trip",
      "keep/.hidden": "h",
    });
    const before = tree(src);
    const jobId = await analyze(src, out);
    const applied = await apply(jobId);
    expect(applied).toMatchObject({
      status: "succeeded",
      completed_with_errors: false,
      result: { moved: 2, failed_rows: 0, folders_removed: 2 },
    });
    expect(tree(src)).toEqual(["keep/", "keep/.hidden"]);
    const rollback = await call<Job>("POST", "/api/jobs/rollback", { job_id: applied.job_id });
    expect(await waitFor(rollback.body.job_id)).toMatchObject({
      status: "succeeded",
      result: { moved_back: 2, directories_restored: 2 },
    });
    expect(tree(src)).toEqual(before);
  });

  it("lists a symlink and a FIFO as skipped rows with reasons and reports the moved link target", async () => {
    t = await createTestApp();
    const src = join(t.dir, "messy");
    const out = join(t.dir, "sorted");
    write(src, { "real.txt": "real" });
    symlinkSync("real.txt", join(src, "shortcut"));
    execFileSync("mkfifo", [join(src, "fifo")]);
    const jobId = await analyze(src, out);
    const page = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?bucket=blocked`);
    expect(
      page.body.items
        .map((r) => [relative(src, r.source_path), r.action, r.error?.code, r.reason_codes[0]])
        .sort(),
    ).toEqual([
      ["fifo", "skip", "SPECIAL_FILE", "SPECIAL_FILE"],
      ["shortcut", "skip", "SYMLINK", "SYMLINK"],
    ]);
    const applied = await apply(jobId);
    expect(applied.result).toMatchObject({
      moved: 1,
      moved_link_targets: 1,
      warnings: [
        {
          code: "SYMLINK_TARGET_MOVED",
          link: join(src, "shortcut"),
          target: join(src, "real.txt"),
          moved_to: join(out, "documents/2024/real.txt"),
        },
      ],
    });
    const skipped = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?status=skipped`);
    expect(skipped.body.items).toHaveLength(2);
  });

  it("marks a partly failed apply completed_with_errors and emits finished_with_errors before finished", async () => {
    t = await createTestApp();
    const src = join(t.dir, "messy");
    const out = join(t.dir, "sorted");
    write(src, { "a.txt": "a", "b.txt": "b" });
    const jobId = await analyze(src, out);
    write(out, { "documents/2024/a.txt": "arrived after analyze" });
    const applied = await apply(jobId);
    expect(applied).toMatchObject({
      status: "succeeded",
      completed_with_errors: true,
      result: { moved: 1, failed_rows: 1, completed_with_errors: true },
    });
    const events = await call<JobEventList>("GET", `/api/jobs/${applied.job_id}/events`);
    const types = events.body.items.map((e) => e.type);
    expect(types.slice(-2)).toEqual(["finished_with_errors", "finished"]);
    expect(events.body.items.at(-2)?.data).toEqual({ failed_rows: 1 });
    expect(readFileSync(join(out, "documents/2024/a.txt"), "utf8")).toBe("arrived after analyze");
  });

  it("resolves duplicates with move_to_duplicates into _duplicates/ and rolls that back", async () => {
    t = await createTestApp();
    const src = join(t.dir, "messy");
    const out = join(t.dir, "sorted");
    write(src, { "a/scan.pdf.txt": "same", "b/scan.pdf.txt": "same" });
    const jobId = await analyze(src, out);
    const conflicts = await call<ConflictList>("GET", `/api/jobs/${jobId}/manifest/conflicts?status=open`);
    const kinds = conflicts.body.items.map((c) => c.kind).sort();
    expect(kinds).toEqual(["duplicate_content", "duplicate_target"]);
    const resolutions = conflicts.body.items.map((c) => ({
      conflict_id: c.conflict_id,
      strategy: c.kind === "duplicate_content" ? "move_to_duplicates" : "skip",
    }));
    const wrong = await call<ErrorEnvelope>("POST", `/api/jobs/${jobId}/manifest/conflicts/resolve`, {
      resolutions: resolutions.map((r) => ({ ...r, strategy: "move_to_duplicates" })),
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe("STRATEGY_NOT_APPLICABLE");
    const dup = resolutions.filter((r) => r.strategy === "move_to_duplicates");
    expect(
      (await call("POST", `/api/jobs/${jobId}/manifest/conflicts/resolve`, { resolutions: dup })).status,
    ).toBe(200);
    const applied = await apply(jobId);
    expect(applied.result).toMatchObject({ moved: 2, failed_rows: 0 });
    expect(tree(out)).toEqual([
      "_duplicates/",
      "_duplicates/scan.pdf.txt",
      "documents/",
      "documents/2024/",
      "documents/2024/scan.pdf.txt",
    ]);
    const rollback = await call<Job>("POST", "/api/jobs/rollback", { job_id: applied.job_id });
    expect((await waitFor(rollback.body.job_id)).result).toMatchObject({ moved_back: 2, failed: 0 });
    expect(tree(src)).toEqual(["a/", "a/scan.pdf.txt", "b/", "b/scan.pdf.txt"]);
    expect(existsSync(out)).toBe(false);
  });
  it("resolves duplicates with move_to_trash into the freedesktop trash and rolls that back", async () => {
    t = await createTestApp();
    const src = join(t.dir, "messy");
    const out = join(t.dir, "sorted");
    write(src, { "a/scan.pdf.txt": "same", "b/scan.pdf.txt": "same" });
    const jobId = await analyze(src, out);
    const conflicts = await call<ConflictList>("GET", `/api/jobs/${jobId}/manifest/conflicts?status=open`);
    const resolutions = conflicts.body.items
      .filter((c) => c.kind === "duplicate_content")
      .map((c) => ({ conflict_id: c.conflict_id, strategy: "move_to_trash" }));
    expect(resolutions).toHaveLength(1);
    expect(
      (await call("POST", `/api/jobs/${jobId}/manifest/conflicts/resolve`, { resolutions })).status,
    ).toBe(200);
    const applied = await apply(jobId);
    expect(applied.result).toMatchObject({ failed_rows: 0 });
    expect(tree(out)).toEqual(["documents/", "documents/2024/", "documents/2024/scan.pdf.txt"]);
    const trash = join(t.dir, ".trash");
    expect(tree(join(trash, "files"))).toEqual(["scan.pdf.txt"]);
    const info = readFileSync(join(trash, "info", "scan.pdf.txt.trashinfo"), "utf8");
    expect(info).toMatch(new RegExp(`^\\[Trash Info\\]\nPath=${src}/[ab]/scan\\.pdf\\.txt\nDeletionDate=`));
    const rollback = await call<Job>("POST", "/api/jobs/rollback", { job_id: applied.job_id });
    expect((await waitFor(rollback.body.job_id)).result).toMatchObject({ failed: 0 });
    expect(tree(src)).toEqual(["a/", "a/scan.pdf.txt", "b/", "b/scan.pdf.txt"]);
    expect(tree(join(trash, "files"))).toEqual([]);
    expect(tree(join(trash, "info"))).toEqual([]);
  });
});
