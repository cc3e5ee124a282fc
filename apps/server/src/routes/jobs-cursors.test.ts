import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AuditList, Job, JobList } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, { headers: LOCAL });
  return { status: res.status, body: (await res.json()) as T };
}

async function post<T>(path: string, body: unknown): Promise<T> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method: "POST",
    headers: { ...LOCAL, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** Three analyze jobs of one folder (each audited when created). */
async function threeJobs(): Promise<Job[]> {
  t = await createTestApp();
  const src = join(t.dir, "src");
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, "a.txt"), "a");
  const out: Job[] = [];
  for (let i = 0; i < 3; i++) out.push(await post<Job>("/api/jobs/analyze", { source_dir: src }));
  return out;
}

describe("job list cursors (@vetted/store cursors)", () => {
  it("pages /api/jobs with opaque cursors and answers 400 CURSOR_INVALID to garbage or a foreign cursor", async () => {
    const created = await threeJobs();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: JobList } = await get<JobList>(
        `/api/jobs?limit=1${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((j) => j.job_id));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(created.map((j) => j.job_id).reverse());

    const first = await get<JobList>("/api/jobs?limit=1");
    const jobsCursor = first.body.next_cursor ?? "";
    for (const path of [
      "/api/jobs?cursor=garbage",
      "/api/jobs/history?cursor=garbage",
      `/api/jobs/${created[0]?.job_id}/audit?cursor=garbage`,
      // a cursor of the jobs list handed to the audit list
      `/api/jobs/${created[0]?.job_id}/audit?cursor=${jobsCursor}`,
    ]) {
      const answer = await get<ErrorEnvelope>(path);
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 400, "CURSOR_INVALID"]);
    }
  });

  it("pages a job's audit entries with opaque cursors (and still takes a bare sequence number)", async () => {
    const [job] = await threeJobs();
    const id = job?.job_id ?? "";
    await post(`/api/jobs/${id}/cancel`, {});
    const all = await get<AuditList>(`/api/jobs/${id}/audit`);
    expect(all.body.items.length).toBeGreaterThanOrEqual(2);
    const first = await get<AuditList>(`/api/jobs/${id}/audit?limit=1`);
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await get<AuditList>(`/api/jobs/${id}/audit?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.items.map((e) => e.audit_id)).toEqual([all.body.items[1]?.audit_id]);
    const fromZero = await get<AuditList>(`/api/jobs/${id}/audit?cursor=0`);
    expect(fromZero.body.items.map((e) => e.audit_id)).toEqual(all.body.items.map((e) => e.audit_id));
  });
});
