import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ApplyPlan, ApplyResult, Job, type ManifestPage } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../tests/api-client.js";
import { type Loopback, serveOnLoopback } from "../tests/loopback.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  await t?.close();
  server = undefined;
  t = undefined;
});

const WHEN = new Date("2024-03-04T05:06:07Z");

async function start() {
  t = await createTestApp();
  const app = t.app;
  server = await serveOnLoopback((request) => app.fetch(request));
  const api = apiClient(server.url);
  const post = (path: string, body: unknown) => api.post(path, body, LOCAL);
  const get = (path: string) => api.call("GET", path, undefined, LOCAL);
  async function waitFor(jobId: string) {
    for (let i = 0; i < 400; i++) {
      const job = Job.parse((await get(`/api/jobs/${jobId}`)).json);
      if (["succeeded", "failed", "cancelled"].includes(job.status)) return job;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`job ${jobId} did not finish`);
  }
  return { post, get, waitFor, dir: t.dir };
}

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    utimesSync(p, WHEN, WHEN);
  }
}

describe("apply over HTTP: only what was reviewed moves, and the answer says what stays and why", () => {
  it("answers the plan, the dry run and the apply by bucket, with the dangling-link warnings", async () => {
    const s = await start();
    const src = join(s.dir, "src");
    const out = join(s.dir, "out");
    write(src, {
      "notes.txt": "hello",
      "thesis/ch1.txt": "chapter one",
      "fake.pdf": "only text, no PDF",
      "empty.txt": "",
      "a/readme.txt": "one",
      "b/readme.txt": "two",
    });
    symlinkSync(join(src, "thesis"), join(src, "thesis-link"));
    const analyzed = await s.post("/api/jobs/analyze", { source_dir: src, output_dir: out });
    expect(analyzed.status).toBe(202);
    const jobId = Job.parse(analyzed.json).job_id;
    expect((await s.waitFor(jobId)).status).toBe("succeeded");

    const planned = await s.post("/api/jobs/apply/plan", { job_id: jobId });
    expect(planned.status).toBe(200);
    const plan = ApplyPlan.parse(planned.json);
    expect(plan).toMatchObject({
      rows: 2,
      included_unreviewed: 0,
      stays: { unreviewed: 2, conflict_open: 2, blocked: 1 },
      by_bucket: {
        auto_safe: { moves: 2, stays: {} },
        needs_review: { moves: 0, stays: { unreviewed: 2 } },
        conflict: { moves: 0, stays: { conflict_open: 2 } },
      },
    });

    const dry = await s.post("/api/jobs/apply", { job_id: jobId, dry_run: true });
    expect(dry.status).toBe(202);
    const dryResult = ApplyResult.parse((await s.waitFor(Job.parse(dry.json).job_id)).result);
    expect(dryResult).toMatchObject({ dry_run: true, would_move: 2, by_bucket: plan.by_bucket });
    expect(dryResult.warnings).toEqual([expect.objectContaining({ code: "FOLDER_LINK_TARGET_MOVED" })]);

    const applied = await s.post("/api/jobs/apply", { job_id: jobId, plan_hash: plan.plan_hash });
    expect(applied.status).toBe(202);
    const result = ApplyResult.parse((await s.waitFor(Job.parse(applied.json).job_id)).result);
    expect(result).toMatchObject({ moved: 2, stays: plan.stays, by_bucket: plan.by_bucket });
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: "FOLDER_LINK_TARGET_MOVED", files_moved: 1, dangling: true }),
    ]);
    expect(existsSync(join(src, "fake.pdf"))).toBe(true);
    expect(existsSync(join(src, "empty.txt"))).toBe(true);

    // Naming the rows moves them, and the answer says it moved rows nobody reviewed.
    const page = (await s.get(`/api/jobs/${jobId}/manifest?bucket=needs_review`)).json as ManifestPage;
    const ids = page.items.map((r) => r.row_id);
    const named = await s.post("/api/jobs/apply", { job_id: jobId, row_ids: ids });
    const namedResult = ApplyResult.parse((await s.waitFor(Job.parse(named.json).job_id)).result);
    expect(namedResult).toMatchObject({ moved: 2, included_unreviewed: 2 });
  });

  it("refuses unknown row_ids and a bad body with 400 and a stable code", async () => {
    const s = await start();
    const src = join(s.dir, "src");
    write(src, { "notes.txt": "hello" });
    const analyzed = await s.post("/api/jobs/analyze", { source_dir: src, output_dir: join(s.dir, "out") });
    const jobId = Job.parse(analyzed.json).job_id;
    await s.waitFor(jobId);
    for (const path of ["/api/jobs/apply", "/api/jobs/apply/plan"]) {
      const unknown = await s.post(path, { job_id: jobId, row_ids: ["row_nope"] });
      expect([unknown.status, unknown.code]).toEqual([400, "UNKNOWN_ROW_IDS"]);
      const bad = await s.post(path, { job_id: jobId, buckets: ["conflict"] });
      expect([bad.status, bad.code]).toEqual([400, "VALIDATION_FAILED"]);
    }
    const missing = await s.post("/api/jobs/apply/plan", { job_id: "job_nope" });
    expect([missing.status, missing.code]).toEqual([404, "JOB_NOT_FOUND"]);
  });
});
