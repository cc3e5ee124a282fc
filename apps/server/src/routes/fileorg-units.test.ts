import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Conflict, ConflictList, EditResult, Job, ManifestPage } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

type ErrorBody = { error: { code: string } };

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const FILES: Record<string, string> = {
  "Projects/site/.git/HEAD": "ref: refs/heads/main\n",
  "Projects/site/.env": "A=1\n",
  "Projects/site/package.json": "{}",
  "Projects/site/src/index.ts": "export {};\n",
  "Desktop/Copy of notes.txt": "same",
  "Documents/notes.txt": "same",
};

async function analyzeHome() {
  t = await createTestApp();
  const src = join(t.dir, "Home");
  const may2024 = new Date("2024-05-06T12:00:00Z");
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(src, rel)), { recursive: true });
    writeFileSync(join(src, rel), content);
    utimesSync(join(src, rel), may2024, may2024);
  }
  const started = await call<Job>("POST", "/api/jobs/analyze", {
    source_dir: src,
    output_dir: join(t.dir, "Out"),
  });
  expect(started.status).toBe(202);
  let job = started.body;
  for (let i = 0; i < 400 && !["succeeded", "failed", "cancelled"].includes(job.status); i++) {
    await new Promise((r) => setTimeout(r, 25));
    job = (await call<Job>("GET", `/api/jobs/${job.job_id}`)).body;
  }
  expect(job.status).toBe("succeeded");
  return { src, jobId: job.job_id };
}

describe("fileorg units and originals over HTTP", () => {
  it("shows each row's unit and splits a unit in one action", async () => {
    const { src, jobId } = await analyzeHome();
    const page = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?limit=100`);
    const unitRows = page.body.items.filter((r) => r.unit !== null);
    expect(unitRows.map((r) => r.source_path.slice(src.length + 1)).sort()).toEqual([
      "Projects/site/.env",
      "Projects/site/.git/HEAD",
      "Projects/site/package.json",
      "Projects/site/src/index.ts",
    ]);
    const unit = unitRows[0]?.unit;
    expect(unit).toMatchObject({
      kind: "software_project",
      reason: "has .git",
      root: join(src, "Projects/site"),
    });
    const split = await call<EditResult>("POST", `/api/jobs/${jobId}/manifest/units/${unit?.id}/split`);
    expect(split.status).toBe(200);
    expect(split.body.items.map((r) => r.unit)).toEqual([null, null, null, null]);
    const again = await call<ErrorBody>("POST", `/api/jobs/${jobId}/manifest/units/${unit?.id}/split`);
    expect([again.status, again.body.error.code]).toEqual([404, "UNIT_NOT_FOUND"]);
  });

  it("names a duplicate group's original, and lets a person choose another copy", async () => {
    const { jobId } = await analyzeHome();
    const list = await call<ConflictList>("GET", `/api/jobs/${jobId}/manifest/conflicts?status=open`);
    const group = list.body.items.find((c) => c.kind === "duplicate_content");
    if (group === undefined) throw new Error("no duplicate group");
    const rows = (await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?limit=100`)).body.items;
    const pathOf = (id: string | undefined) => rows.find((r) => r.row_id === id)?.source_path ?? "";
    expect(pathOf(group.original?.row_id).endsWith("Documents/notes.txt")).toBe(true);
    expect(group.original).toMatchObject({ reasons: ["NAME_WITHOUT_COPY_MARKER"], chosen_by: "policy" });
    const copy = group.row_ids.find((id) => id !== group.original?.row_id);
    const url = `/api/jobs/${jobId}/manifest/conflicts/${group.conflict_id}/original`;
    const chosen = await call<Conflict>("POST", url, { row_id: copy });
    expect([chosen.status, chosen.body.original?.row_id, chosen.body.original?.chosen_by]).toEqual([
      200,
      copy,
      "person",
    ]);
    const stranger = await call<ErrorBody>("POST", url, { row_id: "row_nope" });
    expect([stranger.status, stranger.body.error.code]).toEqual([400, "NOT_IN_DUPLICATE_GROUP"]);
    const bad = await call<ErrorBody>("POST", url, { row_id: copy, extra: 1 });
    expect([bad.status, bad.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
  });
});
