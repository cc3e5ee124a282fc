import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type {
  AuditList,
  ConflictList,
  EditResult,
  Job,
  JobEventList,
  JobList,
  JobReport,
  ManifestPage,
  ManifestRow,
  ManifestView,
  RowPreview,
} from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The part of the OpenAPI document the tests read. */
interface OpenApiDoc {
  paths: Record<string, unknown>;
}

/**
 * Calls the app; `T` names the documented shape of the answer the caller expects (a `Job`, a
 * `ManifestPage`, an `ErrorEnvelope`...). Leave it `unknown` when only the status is read.
 */
async function call<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed: unknown = text === "" ? {} : JSON.parse(text);
  return { status: res.status, body: parsed as T, headers: res.headers };
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
  const when = new Date("2022-01-02T03:04:05Z");
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    utimesSync(p, when, when);
  }
}

function tree(root: string): { files: Record<string, string>; dirs: string[] } {
  const files: Record<string, string> = {};
  const dirs: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    const rel = relative(root, join(e.parentPath, e.name));
    if (e.isDirectory()) dirs.push(rel);
    else
      files[rel] = createHash("sha256")
        .update(readFileSync(join(root, rel)))
        .digest("hex");
  }
  return { files, dirs: dirs.sort() };
}

const MESSY = {
  "inbox/report.txt": "q1",
  "archive/2019/report.txt": "q1 again but different",
  "photos/a.md": "same bytes",
  "photos/nested/deeper/b.md": "same bytes",
  "Résumé.txt": "nfc",
  "re\u0301sume\u0301.TXT": "nfd",
  "UPPER.txt": "upper",
  "upper.txt": "lower",
  "existing.txt": "new",
  "plain.log": "log line\nsecond line\n",
};

describe("jobs over HTTP, end to end", () => {
  it("analyzes a messy tree, lists and resolves conflicts, applies byte-identically and rolls back exactly", async () => {
    t = await createTestApp();
    const src = join(t.dir, "messy");
    const out = join(t.dir, "organized");
    write(src, MESSY);
    write(out, { "documents/2022/existing.txt": "already there" });
    const before = { src: tree(src), out: tree(out) };

    const analyze = await call<Job>("POST", "/api/jobs/analyze", { source_dir: src, output_dir: out });
    expect(analyze.status).toBe(202);
    expect(analyze.body).toMatchObject({ kind: "analyze", status: "queued" });
    const jobId = analyze.body.job_id;
    expect(await waitFor(jobId)).toMatchObject({ status: "succeeded", result: { files: 10 } });

    const conflicts = await call<ConflictList>("GET", `/api/jobs/${jobId}/manifest/conflicts?status=open`);
    expect(conflicts.status).toBe(200);
    const kinds = conflicts.body.items.map((c) => c.kind).sort();
    expect(kinds).toEqual([
      "case_collision",
      "case_collision",
      "duplicate_content",
      "duplicate_target",
      "target_exists",
    ]);
    const conflictRows = await call<ManifestPage>(
      "GET",
      `/api/jobs/${jobId}/manifest?bucket=conflict&limit=100`,
    );
    expect(conflictRows.body.items.length).toBeGreaterThanOrEqual(8);

    const resolve = await call("POST", `/api/jobs/${jobId}/manifest/conflicts/resolve`, {
      resolutions: conflicts.body.items.map((c) => ({
        conflict_id: c.conflict_id,
        strategy: c.kind === "duplicate_content" ? "keep_both" : "rename",
      })),
    });
    expect(resolve.status).toBe(200);
    // resolving case collisions by renaming can leave nothing open
    const open = await call<ConflictList>("GET", `/api/jobs/${jobId}/manifest/conflicts?status=open`);
    expect(open.body.items).toEqual([]);

    const manifest = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?limit=100`);
    expect(manifest.body).toMatchObject({ next_cursor: null, revision: 1 });
    expect(manifest.headers.get("ETag")).toBe('"1"');
    const rows = manifest.body.items;
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining([
          "row_id",
          "source_path",
          "target_path",
          "size",
          "mtime",
          "sha256",
          "mime",
          "category",
          "confidence",
          "action",
          "review_bucket",
          "reason_codes",
          "status",
          "edited",
          "error",
        ]),
      );
    }

    const view = await call<ManifestView>("GET", `/api/jobs/${jobId}/manifest/view`);
    expect(view.status).toBe(200);
    expect(view.body.folders[0]).toMatchObject({ path: "", total_files: 10 });
    const logRow = rows.find((r) => String(r.source_path).endsWith("plain.log"));
    const preview = await call<RowPreview>("GET", `/api/jobs/${jobId}/manifest/${logRow?.row_id}/preview`);
    expect(preview.body).toMatchObject({ kind: "text", text: "log line\nsecond line\n" });

    const apply = await call<Job>("POST", "/api/jobs/apply", {
      job_id: jobId,
      plan_hash: manifest.body.plan_hash,
    });
    expect(apply.status).toBe(202);
    const applied = await waitFor(apply.body.job_id);
    expect(applied).toMatchObject({ status: "succeeded", result: { moved: 10, failed: 0 } });
    for (const row of rows) {
      const content = readFileSync(row.target_path);
      expect(createHash("sha256").update(content).digest("hex")).toBe(row.sha256);
    }
    expect(readFileSync(join(out, "documents/2022/existing.txt"), "utf8")).toBe("already there");

    const report = await call<JobReport>("GET", `/api/jobs/${apply.body.job_id}/report`);
    expect(report.body).toMatchObject({
      kind: "apply",
      totals: { rows: 10 },
      by_status: { applied: 10 },
      duplicates: { groups: 1, rows: 2 },
      conflicts: { open: 0, resolved: 5 },
    });
    expect(report.body.bytes_moved).toBeGreaterThan(0);
    expect(Object.keys(report.body.durations_ms)).toContain("moving");

    const rollback = await call<Job>("POST", "/api/jobs/rollback", { job_id: apply.body.job_id });
    expect(rollback.status).toBe(202);
    expect(await waitFor(rollback.body.job_id)).toMatchObject({
      status: "succeeded",
      result: { moved_back: 10 },
    });
    expect(tree(src)).toEqual(before.src);
    expect(tree(out)).toEqual(before.out);

    const audit = await call<AuditList>("GET", `/api/jobs/${jobId}/audit`);
    expect(audit.body.chain_valid).toBe(true);
    expect(audit.body.items.some((e) => e.action === "conflict.resolve" && e.request_id)).toBe(true);
    const history = await call<JobList>("GET", "/api/jobs/history?kind=rollback");
    expect(history.body.items.map((j) => j.job_id)).toEqual([rollback.body.job_id]);
    const listed = await call<JobList>("GET", "/api/jobs?limit=2");
    expect(listed.body.items[0]?.job_id).toBe(rollback.body.job_id);
    expect(typeof listed.body.next_cursor).toBe("string");
  });
});

describe("edits over HTTP", () => {
  async function analyzed() {
    t = await createTestApp();
    const src = join(t.dir, "src");
    write(src, { "a.txt": "a", "b.txt": "b" });
    const job = await call<Job>("POST", "/api/jobs/analyze", { source_dir: src });
    await waitFor(job.body.job_id);
    const manifest = await call<ManifestPage>("GET", `/api/jobs/${job.body.job_id}/manifest`);
    return { jobId: job.body.job_id, rows: manifest.body.items };
  }

  it("patches one field of a row, answers the row, and refuses a stale If-Match with 412", async () => {
    const { jobId, rows } = await analyzed();
    const row = rows[0];
    if (row === undefined) throw new Error("no row");
    const ok = await call<ManifestRow>(
      "PATCH",
      `/api/jobs/${jobId}/manifest/rows/${row.row_id}`,
      { category: "code" },
      { "If-Match": '"0"' },
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ category: "code", sha256: row.sha256, edited: true });
    expect(ok.headers.get("ETag")).toBe('"1"');
    const stale = await call<ErrorEnvelope>(
      "PATCH",
      `/api/jobs/${jobId}/manifest/rows/${row.row_id}`,
      { action: "skip" },
      { "If-Match": "0" },
    );
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe("REVISION_MISMATCH");
  });

  it("applies a batch atomically and answers 404 for an unknown row", async () => {
    const { jobId, rows } = await analyzed();
    const batch = await call<EditResult>("POST", `/api/jobs/${jobId}/manifest/batch`, {
      operations: rows.map((r) => ({ row_id: r.row_id, patch: { action: "skip" } })),
    });
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({ revision: 1 });
    const bad = await call<ErrorEnvelope>("POST", `/api/jobs/${jobId}/manifest/batch`, {
      operations: [
        { row_id: rows[0]?.row_id, patch: { action: "move" } },
        { row_id: "row_missing", patch: { action: "move" } },
      ],
    });
    expect(bad.status).toBe(404);
    expect(bad.body.error.code).toBe("ROW_NOT_FOUND");
    expect((await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest`)).body.revision).toBe(1);
  });

  it("lets one of two applies win (409 JOB_BUSY) and refuses edits while an apply is active", async () => {
    const { jobId, rows } = await analyzed();
    await t?.deps.fileorg.stop(); // keeps the first apply queued, deterministically
    const first = await call<Job>("POST", "/api/jobs/apply", { job_id: jobId });
    const second = await call<ErrorEnvelope>("POST", "/api/jobs/apply", { job_id: jobId });
    expect([first.status, second.status]).toEqual([202, 409]);
    expect(second.body.error.code).toBe("JOB_BUSY");
    const edit = await call<ErrorEnvelope>("PATCH", `/api/jobs/${jobId}/manifest/rows/${rows[0]?.row_id}`, {
      action: "skip",
    });
    expect(edit.status).toBe(409);
    expect(edit.body.error.code).toBe("MANIFEST_LOCKED");
    await t?.deps.fileorg.start();
    expect(await waitFor(first.body.job_id)).toMatchObject({ status: "succeeded" });
    const stale = await call<ErrorEnvelope>("POST", "/api/jobs/apply", {
      job_id: jobId,
      plan_hash: "0".repeat(64),
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("PLAN_CHANGED");
  });
});

describe("bad input over HTTP", () => {
  it("answers traversal, symlink escape and outside roots with 403, missing with 404, a file with 400", async () => {
    t = await createTestApp();
    mkdirSync(join(t.dir, "in"));
    writeFileSync(join(t.dir, "in", "f.txt"), "x");
    symlinkSync("/", join(t.dir, "in", "root-link"));
    const code = async (source_dir: string) => {
      const res = await call<ErrorEnvelope>("POST", "/api/jobs/analyze", { source_dir });
      return [res.status, res.body.error?.code];
    };
    expect(await code("/usr")).toEqual([403, "PATH_OUTSIDE_ROOT"]);
    expect(await code(`${t.dir}/in/../../../usr`)).toEqual([403, "PATH_OUTSIDE_ROOT"]);
    expect(await code(join(t.dir, "in", "root-link"))).toEqual([403, "PATH_OUTSIDE_ROOT"]);
    expect(await code(join(t.dir, "missing"))).toEqual([404, "SOURCE_NOT_FOUND"]);
    expect(await code(join(t.dir, "in", "f.txt"))).toEqual([400, "NOT_A_DIRECTORY"]);
    // A relative path is a mistake in the request, not an attempt to leave the roots: 400, not 403.
    expect(await code("relative/path")).toEqual([400, "PATH_NOT_ABSOLUTE"]);
    const relativeOut = await call<ErrorEnvelope>("POST", "/api/jobs/analyze", {
      source_dir: join(t.dir, "in"),
      output_dir: "sorted",
    });
    expect([relativeOut.status, relativeOut.body.error.code]).toEqual([400, "PATH_NOT_ABSOLUTE"]);
    expect(relativeOut.body.error.message).toContain('"sorted"');
  });

  it("answers malformed bodies with 400 and unknown or wrong-kind jobs with 404 and 409", async () => {
    t = await createTestApp();
    expect((await call<ErrorEnvelope>("POST", "/api/jobs/analyze", "{not json")).body.error.code).toBe(
      "INVALID_JSON",
    );
    const invalid = await call<ErrorEnvelope>("POST", "/api/jobs/analyze", { source_dir: 42, extra: true });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    const badTemplate = await call<ErrorEnvelope>("POST", "/api/jobs/analyze", {
      source_dir: t.dir,
      naming_template: "{nope}",
    });
    expect([badTemplate.status, badTemplate.body.error.code]).toEqual([400, "INVALID_TEMPLATE"]);
    expect((await call("GET", "/api/jobs/job_missing")).status).toBe(404);
    expect((await call<ErrorEnvelope>("GET", "/api/jobs/job_missing/manifest")).body.error.code).toBe(
      "JOB_NOT_FOUND",
    );
    const resolve = await call("POST", "/api/jobs/job_x/manifest/conflicts/resolve", {
      resolutions: [{ conflict_id: "c", strategy: "explode" }],
    });
    expect(resolve.status).toBe(400);
    mkdirSync(join(t.dir, "empty"));
    const job = await call<Job>("POST", "/api/jobs/analyze", { source_dir: join(t.dir, "empty") });
    await waitFor(job.body.job_id);
    const rollback = await call<ErrorEnvelope>("POST", "/api/jobs/rollback", { job_id: job.body.job_id });
    expect([rollback.status, rollback.body.error.code]).toEqual([409, "WRONG_JOB_KIND"]);
    const retry = await call<ErrorEnvelope>("POST", `/api/jobs/${job.body.job_id}/retry`);
    expect([retry.status, retry.body.error.code]).toEqual([409, "JOB_NOT_RETRYABLE"]);
    const cancel = await call<Job>("POST", `/api/jobs/${job.body.job_id}/cancel`);
    expect(cancel.body.status).toBe("succeeded");
    expect((await call("GET", `/api/jobs/${job.body.job_id}/manifest/rows_x/preview`)).status).toBe(404);
  });
});

describe("job streams", () => {
  async function readStream(path: string, headers: Record<string, string> = {}) {
    if (t === undefined) throw new Error("no app");
    const res = await t.app.request(path, { headers: { ...LOCAL, ...headers } });
    expect(res.headers.get("Content-Type")).toContain("text/event-stream");
    return res.text(); // the stream ends with the job's `finished` event
  }

  it("replays a finished job's events after Last-Event-ID, with ids, and pushes job snapshots on /stream", async () => {
    t = await createTestApp();
    mkdirSync(join(t.dir, "s"));
    writeFileSync(join(t.dir, "s", "x.txt"), "x");
    const job = await call<Job>("POST", "/api/jobs/analyze", { source_dir: join(t.dir, "s") });
    await waitFor(job.body.job_id);
    const events = await call<JobEventList>("GET", `/api/jobs/${job.body.job_id}/events?after=1`);
    expect(events.body.items[0]?.seq).toBe(2);
    const text = await readStream(`/api/jobs/${job.body.job_id}/events/stream`, { "Last-Event-ID": "1" });
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(2);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(text).toContain("event: finished");
    const withSnapshots = await readStream(`/api/jobs/${job.body.job_id}/stream`);
    expect(withSnapshots).toContain("event: job");
    expect(withSnapshots).toContain('"status":"succeeded"');
  });

  it("streams live job changes on /api/jobs/stream", async () => {
    t = await createTestApp();
    const app = t.app;
    const res = await app.request("/api/jobs/stream", { headers: LOCAL });
    const reader = res.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    mkdirSync(join(t.dir, "live"));
    await call("POST", "/api/jobs/analyze", { source_dir: join(t.dir, "live") });
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes('"type":"finished"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader.cancel();
    expect(text).toMatch(/^id: \d+$/m);
    expect(text).toContain("event: job");
  });
});

describe("OpenAPI", () => {
  it("documents every jobs route", async () => {
    t = await createTestApp();
    const doc = await call<OpenApiDoc>("GET", "/api/openapi.json");
    const paths = Object.keys(doc.body.paths);
    for (const p of [
      "/api/jobs",
      "/api/jobs/history",
      "/api/jobs/stream",
      "/api/jobs/{job_id}",
      "/api/jobs/{job_id}/events",
      "/api/jobs/{job_id}/events/stream",
      "/api/jobs/{job_id}/stream",
      "/api/jobs/{job_id}/manifest",
      "/api/jobs/{job_id}/manifest/batch",
      "/api/jobs/{job_id}/manifest/conflicts",
      "/api/jobs/{job_id}/manifest/conflicts/resolve",
      "/api/jobs/{job_id}/manifest/rows/{row_id}",
      "/api/jobs/{job_id}/manifest/view",
      "/api/jobs/{job_id}/manifest/{row_id}/preview",
      "/api/jobs/analyze",
      "/api/jobs/apply",
      "/api/jobs/rollback",
      "/api/jobs/{job_id}/cancel",
      "/api/jobs/{job_id}/retry",
      "/api/jobs/{job_id}/audit",
      "/api/jobs/{job_id}/report",
    ]) {
      expect(paths).toContain(p);
    }
  });
});
