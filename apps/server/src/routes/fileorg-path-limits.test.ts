import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConflictList, Job, ManifestPage } from "@vetted/fileorg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp;
let jobId: string;
let rowId: string;
let conflictId: string;

/** 60 KB in one segment: the request that held the event loop 13 s when segments were cut one character at a time. */
const HUGE = `docs/${"x".repeat(60_000)}.txt`;
/** Short as a path, but one segment of 300 bytes. */
const LONG_SEGMENT = `docs/${"é".repeat(150)}.txt`;

async function call<T>(
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: T; ms: number }> {
  const started = performance.now();
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as T;
  return { status: res.status, body: parsed, ms: performance.now() - started };
}

async function get<T>(path: string): Promise<T> {
  return (await (await t.app.request(path, { headers: LOCAL })).json()) as T;
}

beforeAll(async () => {
  t = await createTestApp();
  const src = join(t.dir, "src");
  for (const folder of ["a", "b"]) {
    mkdirSync(join(src, folder), { recursive: true });
    writeFileSync(join(src, folder, "report.txt"), `report ${folder}`);
  }
  const job = await call<Job>("POST", "/api/jobs/analyze", { source_dir: src });
  jobId = job.body.job_id;
  for (let i = 0; i < 400; i++) {
    if ((await get<Job>(`/api/jobs/${jobId}`)).status === "succeeded") break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const rows = (await get<ManifestPage>(`/api/jobs/${jobId}/manifest`)).items;
  rowId = rows[0]?.row_id ?? "";
  const conflicts = await get<ConflictList>(`/api/jobs/${jobId}/manifest/conflicts?status=open`);
  conflictId = conflicts.items[0]?.conflict_id ?? "";
  expect([rows.length, conflicts.items.length]).toEqual([2, 1]);
}, 30_000);

afterAll(async () => {
  await t?.close();
});

/** Every entry point that takes a target path, with `path` in its place. */
const ENTRY_POINTS: Array<{
  name: string;
  request: (path: string) => [string, string, unknown];
  pointer: string;
}> = [
  {
    name: "a row edit",
    request: (path) => ["PATCH", `/api/jobs/${jobId}/manifest/rows/${rowId}`, { target_path: path }],
    pointer: "/target_path",
  },
  {
    name: "a batch edit",
    request: (path) => [
      "POST",
      `/api/jobs/${jobId}/manifest/batch`,
      { operations: [{ row_id: rowId, patch: { target_path: path } }] },
    ],
    pointer: "/operations/0/patch/target_path",
  },
  {
    name: "a triage set_target",
    request: (path) => [
      "POST",
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      { row_ids: [rowId], action: "set_target", value: path },
    ],
    pointer: "/value",
  },
  {
    name: "a manual conflict target",
    request: (path) => [
      "POST",
      `/api/jobs/${jobId}/manifest/conflicts/resolve`,
      { resolutions: [{ conflict_id: conflictId, strategy: "manual", target_path: path, row_id: rowId }] },
    ],
    pointer: "/resolutions/0/target_path",
  },
];

describe("target paths are bounded at the edge", () => {
  for (const entry of ENTRY_POINTS) {
    it(`answers ${entry.name} with a 60 KB target path 400 VALIDATION_FAILED in well under a second`, async () => {
      const answer = await call<ErrorEnvelope>(...entry.request(HUGE));
      expect(answer.ms).toBeLessThan(1000);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("VALIDATION_FAILED");
      expect(answer.body.error.message).toContain("at most 4096 bytes");
      expect(answer.body.error.details).toMatchObject({ issues: [{ in: "body", pointer: entry.pointer }] });
      expect((await get<ManifestPage>(`/api/jobs/${jobId}/manifest`)).revision).toBe(0);
    });

    it(`answers ${entry.name} with a 300-byte segment 400, naming the 255-byte limit`, async () => {
      const answer = await call<ErrorEnvelope>(...entry.request(LONG_SEGMENT));
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("VALIDATION_FAILED");
      expect(answer.body.error.message).toContain("at most 255 bytes");
    });
  }
});
