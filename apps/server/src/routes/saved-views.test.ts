import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ManifestPage, ManifestRow } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Documents of 10, 300 and 2,000 bytes; files of an unknown type (low confidence) of 50 and 900 bytes. */
const FILES: Record<string, number> = {
  "small.txt": 10,
  "big.txt": 2000,
  "mid.txt": 300,
  "u-small.zzz": 50,
  "u-big.zzz": 900,
};

async function analyzed(): Promise<string> {
  t = await createTestApp();
  const source = join(t.dir, "src");
  mkdirSync(source);
  for (const [name, size] of Object.entries(FILES)) writeFileSync(join(source, name), "x".repeat(size));
  const job = await t.deps.fileorg.analyze(
    { source_dir: source, output_dir: join(t.dir, "out") },
    { actor: "local" },
  );
  expect((await t.deps.fileorg.waitForJob(job.job_id, 30_000)).status).toBe("succeeded");
  return job.job_id;
}

async function saveView(view: unknown): Promise<string> {
  const saved = await call<{ id: string }>("POST", "/api/preferences/views", view);
  expect(saved.status).toBe(200);
  return saved.body.id;
}

const names = (rows: ReadonlyArray<Pick<ManifestRow, "source_path">>) =>
  rows.map((r) => r.source_path.split("/").pop());

/** Every row of a listing, page by page (`limit` per page), following next_cursor. */
async function allPages(path: string, limit: number): Promise<ManifestRow[]> {
  const out: ManifestRow[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const url: string = `${path}${sep}limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`;
    const page: { status: number; body: ManifestPage } = await call<ManifestPage>("GET", url);
    expect(page.status).toBe(200);
    out.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return out;
}

describe("GET /api/jobs/{job_id}/manifest?view=", () => {
  it("applies the saved view's filter and sort, page by page", async () => {
    const jobId = await analyzed();
    const view = await saveView({
      name: "Documents, biggest first",
      filter: { category: "documents" },
      sort: [{ field: "size", direction: "desc" }],
    });
    const one = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?view=${view}`);
    expect(names(one.body.items)).toEqual(["big.txt", "mid.txt", "small.txt"]);
    expect(names(await allPages(`/api/jobs/${jobId}/manifest?view=${view}`, 1))).toEqual([
      "big.txt",
      "mid.txt",
      "small.txt",
    ]);
  });

  it("lets an explicit query field win over the view's, keeping the view's sort", async () => {
    const jobId = await analyzed();
    const view = await saveView({
      name: "Smallest first",
      filter: { category: "documents" },
      sort: [{ field: "size", direction: "asc" }],
    });
    const other = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?view=${view}&category=other`);
    expect(names(other.body.items)).toEqual(["u-small.zzz", "u-big.zzz"]);
    const narrowed = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?view=${view}&text=mid`);
    expect(names(narrowed.body.items)).toEqual(["mid.txt"]);
  });

  it("sorts by several fields in mixed directions across pages", async () => {
    const jobId = await analyzed();
    const view = await saveView({
      name: "By category, then biggest",
      sort: [
        { field: "category", direction: "desc" },
        { field: "size", direction: "desc" },
      ],
    });
    expect(names(await allPages(`/api/jobs/${jobId}/manifest?view=${view}`, 2))).toEqual([
      "u-big.zzz",
      "u-small.zzz",
      "big.txt",
      "mid.txt",
      "small.txt",
    ]);
  });

  it("answers 404 VIEW_NOT_FOUND for an unknown view and 400 CURSOR_INVALID for a cursor of another order", async () => {
    const jobId = await analyzed();
    const missing = await call<ErrorEnvelope>("GET", `/api/jobs/${jobId}/manifest?view=view_nope`);
    expect([missing.status, missing.body.error.code]).toEqual([404, "VIEW_NOT_FOUND"]);
    const plain = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?limit=1`);
    const view = await saveView({ name: "By size", sort: [{ field: "size", direction: "asc" }] });
    const mixed = await call<ErrorEnvelope>(
      "GET",
      `/api/jobs/${jobId}/manifest?view=${view}&cursor=${plain.body.next_cursor}`,
    );
    expect([mixed.status, mixed.body.error.code]).toEqual([400, "CURSOR_INVALID"]);
  });
});

describe("GET /api/jobs/{job_id}/manifest?reason=", () => {
  it("filters by a known reason, alone or from a view, and refuses an unknown one naming the known ones", async () => {
    const jobId = await analyzed();
    const unknown = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?reason=UNKNOWN_TYPE`);
    expect(names(unknown.body.items).sort()).toEqual(["u-big.zzz", "u-small.zzz"]);
    const view = await saveView({ name: "Unknown types", filter: { reason: "UNKNOWN_TYPE" } });
    const viewed = await call<ManifestPage>("GET", `/api/jobs/${jobId}/manifest?view=${view}`);
    expect(names(viewed.body.items).sort()).toEqual(["u-big.zzz", "u-small.zzz"]);
    const refused = await call<ErrorEnvelope>("GET", `/api/jobs/${jobId}/manifest?reason=SOMETHING`);
    expect([refused.status, refused.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(refused.body.error.message).toContain('unknown reason "SOMETHING"; use one of');
  });
});

describe("GET /api/jobs/{job_id}/review-queue?view=", () => {
  it("applies the view's filter and sort to the queue; an explicit bucket wins", async () => {
    const jobId = await analyzed();
    const plain = await call<ManifestPage>("GET", `/api/jobs/${jobId}/review-queue`);
    expect(names(plain.body.items).sort()).toEqual(["u-big.zzz", "u-small.zzz"]);
    const view = await saveView({
      name: "Unsure, biggest first",
      filter: { bucket: "needs_review" },
      sort: [{ field: "size", direction: "desc" }],
    });
    const queued = await call<ManifestPage>("GET", `/api/jobs/${jobId}/review-queue?view=${view}`);
    expect(names(queued.body.items)).toEqual(["u-big.zzz", "u-small.zzz"]);
    const safe = await call<ManifestPage>(
      "GET",
      `/api/jobs/${jobId}/review-queue?view=${view}&bucket=auto_safe`,
    );
    expect(names(safe.body.items)).toEqual(["big.txt", "mid.txt", "small.txt"]);
    expect(names(await allPages(`/api/jobs/${jobId}/review-queue?view=${view}`, 1))).toEqual([
      "u-big.zzz",
      "u-small.zzz",
    ]);
  });

  it("keeps the queue's own scope and priority order through a view with no filter or sort", async () => {
    const jobId = await analyzed();
    const view = await saveView({ name: "Everything" });
    const plain = await call<ManifestPage>("GET", `/api/jobs/${jobId}/review-queue`);
    const viewed = await call<ManifestPage>("GET", `/api/jobs/${jobId}/review-queue?view=${view}`);
    expect(viewed.body.items).toEqual(plain.body.items);
    const narrow = await saveView({ name: "The big unknown", filter: { q: "u-big", category: "other" } });
    const narrowed = await call<ManifestPage>("GET", `/api/jobs/${jobId}/review-queue?view=${narrow}`);
    expect(names(narrowed.body.items)).toEqual(["u-big.zzz"]);
    const pending = await saveView({
      name: "Pending docs",
      filter: { status: "pending", category: "documents" },
    });
    const docs = await call<ManifestPage>(
      "GET",
      `/api/jobs/${jobId}/review-queue?view=${pending}&bucket=auto_safe`,
    );
    expect(names(docs.body.items).sort()).toEqual(["big.txt", "mid.txt", "small.txt"]);
    const missing = await call<ErrorEnvelope>("GET", `/api/jobs/${jobId}/review-queue?view=nope`);
    expect([missing.status, missing.body.error.code]).toEqual([404, "VIEW_NOT_FOUND"]);
  });
});

describe("saving a view", () => {
  it("refuses unknown fields, categories, buckets and reasons with 400 naming the allowed values", async () => {
    t = await createTestApp();
    const refused = async (filter: unknown) => {
      const res = await call<ErrorEnvelope>("POST", "/api/preferences/views", { name: "Bad", filter });
      expect(res.status).toBe(400);
      return res.body.error.message;
    };
    expect(await refused({ colour: "red" })).toContain(
      'unknown filter field "colour"; use bucket, status, category, reason, q',
    );
    expect(await refused({ category: "recipes" })).toMatch(
      /unknown category "recipes"; use one of documents, images/,
    );
    expect(await refused({ bucket: "later" })).toMatch(/needs_review/);
    expect(await refused({ reason: "BECAUSE" })).toMatch(
      /unknown reason "BECAUSE"; use one of .*LOW_CONFIDENCE/,
    );
    const list = await call<{ items: unknown[] }>("GET", "/api/preferences/views");
    expect(list.body.items).toEqual([]);
  });
});

describe("GET /api/jobs/{job_id}/manifest?sort=", () => {
  it("sorts by the given keys page by page, wins over a view's sort, and refuses an unknown field", async () => {
    const jobId = await analyzed();
    const bySize = await allPages(`/api/jobs/${jobId}/manifest?sort=size:desc`, 2);
    expect(names(bySize)).toEqual(["big.txt", "u-big.zzz", "mid.txt", "u-small.zzz", "small.txt"]);
    const view = await saveView({
      name: "Docs",
      filter: { category: "documents" },
      sort: [{ field: "size" }],
    });
    const docs = await call<ManifestPage>(
      "GET",
      `/api/jobs/${jobId}/manifest?view=${view}&sort=source_path:desc`,
    );
    expect(names(docs.body.items)).toEqual(["small.txt", "mid.txt", "big.txt"]);
    const bad = await call<ErrorEnvelope>("GET", `/api/jobs/${jobId}/manifest?sort=colour:asc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("colour:asc");
  });
});
