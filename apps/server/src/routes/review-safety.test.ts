import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BatchTriageResult, Job, ManifestRow } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** Analyzes `files` (in the app's temp dir) into a manifest; answers the job id. */
async function analyzed(files: Record<string, string>): Promise<string> {
  t = await createTestApp();
  const source = join(t.dir, "src");
  mkdirSync(source);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(source, name), content);
  const job = await t.deps.fileorg.analyze(
    { source_dir: source, output_dir: join(t.dir, "out") },
    { actor: "local" },
  );
  expect((await t.deps.fileorg.waitForJob(job.job_id, 30_000)).status).toBe("succeeded");
  return job.job_id;
}

async function rowsOf(jobId: string): Promise<ManifestRow[]> {
  return (await call<{ items: ManifestRow[] }>("GET", `/api/jobs/${jobId}/manifest?limit=500`)).body.items;
}

const FILES = { "a.zzz": "a", "b.zzz": "b", "c.txt": "c" };

describe("batch triage selects rows only when told which", () => {
  it("refuses an empty filter, and no selection at all, with 400 naming all: true — and changes nothing", async () => {
    const jobId = await analyzed(FILES);
    const before = await rowsOf(jobId);
    for (const body of [{ filter: {}, action: "approve" }, { action: "approve" }]) {
      const res = await call<ErrorEnvelope>("POST", `/api/jobs/${jobId}/review-queue/batch-triage`, body);
      expect([res.status, res.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
      expect(res.body.error.message).toContain("all: true");
    }
    const both = await call<ErrorEnvelope>("POST", `/api/jobs/${jobId}/review-queue/batch-triage`, {
      all: true,
      filter: { q: "zzz" },
      action: "approve",
    });
    expect(both.status).toBe(400);
    expect(await rowsOf(jobId)).toEqual(before);
  });

  it("acts on every row with all: true", async () => {
    const jobId = await analyzed(FILES);
    const res = await call<BatchTriageResult>("POST", `/api/jobs/${jobId}/review-queue/batch-triage`, {
      all: true,
      action: "skip",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ matched_count: 3, changed_count: 3, applied_count: 3 });
    expect((await rowsOf(jobId)).map((r) => r.action)).toEqual(["skip", "skip", "skip"]);
  });

  it("reports rows matched apart from rows changed; applied_count is the changed ones", async () => {
    const jobId = await analyzed(FILES);
    const skip = { filter: { q: ".zzz" }, action: "skip" };
    const first = await call<BatchTriageResult>("POST", `/api/jobs/${jobId}/review-queue/batch-triage`, skip);
    expect(first.body).toMatchObject({ matched_count: 2, changed_count: 2, applied_count: 2 });
    const again = await call<BatchTriageResult>("POST", `/api/jobs/${jobId}/review-queue/batch-triage`, skip);
    expect(again.body).toMatchObject({ matched_count: 2, changed_count: 0, applied_count: 0 });
    expect(again.body.revision).toBe(first.body.revision);
  });
});

describe("unknown filter values", () => {
  it("answers 400 naming the allowed reasons, buckets and filter fields", async () => {
    const jobId = await analyzed(FILES);
    const triage = (filter: unknown) =>
      call<ErrorEnvelope>("POST", `/api/jobs/${jobId}/review-queue/batch-triage`, {
        filter,
        action: "approve",
      });
    const reason = await triage({ reason: "NOT_A_REASON" });
    expect(reason.status).toBe(400);
    expect(reason.body.error.message).toMatch(/unknown reason "NOT_A_REASON"; use one of .*LOW_CONFIDENCE/);
    const bucket = await triage({ bucket: "someday" });
    expect(bucket.status).toBe(400);
    expect(bucket.body.error.message).toMatch(/needs_review/);
    const field = await triage({ colour: "red" });
    expect(field.status).toBe(400);
    expect(field.body.error.message).toContain(
      'unknown filter field "colour"; use bucket, reason, category, q',
    );
    const queue = await call<ErrorEnvelope>("GET", `/api/jobs/${jobId}/review-queue?reason=nope`);
    expect([queue.status, queue.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(queue.body.error.message).toContain("use one of");
    const queueBucket = await call<ErrorEnvelope>("GET", `/api/jobs/${jobId}/review-queue?bucket=nope`);
    expect(queueBucket.status).toBe(400);
    expect(queueBucket.body.error.message).toMatch(/auto_safe/);
    // A known reason still filters.
    expect((await call("GET", `/api/jobs/${jobId}/review-queue?reason=LOW_CONFIDENCE`)).status).toBe(200);
  });
});

describe("If-Match on batch triage and rule apply", () => {
  const rule = {
    rule: {
      name: "zzz are archives",
      enabled: true,
      priority: 0,
      stop_further_rules: false,
      conditions: { all: [{ field: "extension", in: [".zzz"] }] },
      actions: [{ type: "set_category", category: "archives" }],
    },
  };

  it("refuses a stale revision with 412 and changes nothing; the current one passes and answers its ETag", async () => {
    const jobId = await analyzed(FILES);
    const [first] = await rowsOf(jobId);
    const read = await call<{ revision: number }>("GET", `/api/jobs/${jobId}/manifest`);
    const seen = read.body.revision;
    // Someone else edits the manifest after it was read.
    await call("PATCH", `/api/jobs/${jobId}/manifest/rows/${first?.row_id}`, { action: "skip" });
    const stale = { "If-Match": `"${seen}"` };
    const before = await rowsOf(jobId);
    const triage = await call<ErrorEnvelope>(
      "POST",
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      { all: true, action: "skip" },
      stale,
    );
    expect([triage.status, triage.body.error.code]).toEqual([412, "REVISION_MISMATCH"]);
    const applied = await call<ErrorEnvelope>("POST", `/api/jobs/${jobId}/review-rules/apply`, rule, stale);
    expect([applied.status, applied.body.error.code]).toEqual([412, "REVISION_MISMATCH"]);
    expect(await rowsOf(jobId)).toEqual(before);

    const current = { "If-Match": `"${seen + 1}"` };
    const ok = await call<{ revision: number }>(
      "POST",
      `/api/jobs/${jobId}/review-rules/apply`,
      rule,
      current,
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ETag")).toBe(`"${seen + 2}"`);
    const triaged = await call<BatchTriageResult>(
      "POST",
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      { filter: { q: "c.txt" }, action: "approve" },
      { "If-Match": `"${ok.body.revision}"` },
    );
    expect(triaged.status).toBe(200);
  });

  it("refuses a stale revision even when there is nothing to change", async () => {
    const jobId = await analyzed(FILES);
    const stale = { "If-Match": '"7"' };
    const none = await call<ErrorEnvelope>(
      "POST",
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      { filter: { q: "no-such-file" }, action: "approve" },
      stale,
    );
    expect([none.status, none.body.error.code]).toEqual([412, "REVISION_MISMATCH"]);
    const nothing = { rule: { ...rule.rule, conditions: { all: [{ field: "extension", in: [".nope"] }] } } };
    const applied = await call<ErrorEnvelope>(
      "POST",
      `/api/jobs/${jobId}/review-rules/apply`,
      nothing,
      stale,
    );
    expect([applied.status, applied.body.error.code]).toEqual([412, "REVISION_MISMATCH"]);
  });
});

describe("rollback of some rows", () => {
  it("answers 400 UNKNOWN_ROW_IDS naming the rows that are not in the manifest, and queues nothing", async () => {
    const jobId = await analyzed(FILES);
    const apply = await call<Job>("POST", "/api/jobs/apply", { job_id: jobId });
    expect((await t?.deps.fileorg.waitForJob(apply.body.job_id, 30_000))?.status).toBe("succeeded");
    const [row] = await rowsOf(jobId);
    const res = await call<ErrorEnvelope>("POST", "/api/jobs/rollback", {
      job_id: apply.body.job_id,
      row_ids: [row?.row_id, "row_nope_1", "row_nope_2"],
    });
    expect([res.status, res.body.error.code]).toEqual([400, "UNKNOWN_ROW_IDS"]);
    expect(res.body.error.message).toContain("row_nope_1, row_nope_2");
    expect(res.body.error.details).toMatchObject({ row_ids: ["row_nope_1", "row_nope_2"] });
    const rollbacks = await call<{ items: Job[] }>("GET", "/api/jobs?kind=rollback");
    expect(rollbacks.body.items).toEqual([]);
    const one = await call<Job>("POST", "/api/jobs/rollback", {
      job_id: apply.body.job_id,
      row_ids: [row?.row_id],
    });
    expect(one.status).toBe(202);
  });
});
