import { mkdirSync, readdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConflictPreview, Job, ManifestPage, ManifestRow } from "@vetted/fileorg";
import { onePagePdf } from "@vetted/fileorg/testing";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { type Loopback, serveOnLoopback } from "../tests/loopback.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await t?.close();
  t = undefined;
});

function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: "#c33" } })
    .jpeg()
    .toBuffer();
}

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  if (server === undefined) throw new Error("no server");
  return fetch(`${server.url}${path}`, { headers: { ...LOCAL, ...headers } });
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Serves a test app on loopback, analyzes `files` over HTTP and answers the job and its rows by name. */
async function analyzed(files: Record<string, Buffer | string>, previewCacheBytes?: number) {
  t = await createTestApp({}, {}, {}, {}, { previewCacheBytes });
  server = await serveOnLoopback(t.app.fetch);
  const src = join(t.dir, "Inbox");
  const out = join(t.dir, "Sorted");
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(src, rel, ".."), { recursive: true });
    writeFileSync(join(src, rel), content);
  }
  const started = await fetch(`${server.url}/api/jobs/analyze`, {
    method: "POST",
    headers: { ...LOCAL, "Content-Type": "application/json" },
    body: JSON.stringify({ source_dir: src, output_dir: out }),
  });
  let job = await json<Job>(started);
  for (let i = 0; i < 400 && !["succeeded", "failed", "cancelled"].includes(job.status); i++) {
    await new Promise((r) => setTimeout(r, 25));
    job = await json<Job>(await get(`/api/jobs/${job.job_id}`));
  }
  expect(job.status).toBe("succeeded");
  const page = await json<ManifestPage>(await get(`/api/jobs/${job.job_id}/manifest?limit=100`));
  const row = (name: string): ManifestRow => {
    const found = page.items.find((r) => r.source_path === join(src, name));
    if (found === undefined) throw new Error(`no row ${name}`);
    return found;
  };
  return {
    job,
    src,
    row,
    thumb: (r: ManifestRow, q = "") => `/api/jobs/${job.job_id}/manifest/${r.row_id}/thumbnail${q}`,
  };
}

describe("thumbnails over HTTP", { timeout: 60_000 }, () => {
  it("keeps the cache to its byte budget (VETTED_PREVIEW_CACHE_BYTES) and still answers every thumbnail", async () => {
    const { row, thumb } = await analyzed(
      { "a.jpg": await jpeg(300, 200), "b.jpg": await jpeg(200, 300) },
      1,
    );
    const cacheDir = t?.deps.previewsDir ?? "";
    for (const name of ["a.jpg", "b.jpg", "a.jpg"]) {
      const res = await get(thumb(row(name), "?size=64"));
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
      // A budget of one byte holds no thumbnail: each is answered, then evicted.
      const entries = readdirSync(cacheDir, { recursive: true }).filter((f) => String(f).endsWith(".webp"));
      expect(entries).toEqual([]);
    }
  });

  it("answers a JPEG's and a PDF's thumbnail as WebP with an ETag, then 304 for a current one", async () => {
    const { row, thumb } = await analyzed({ "photo.jpg": await jpeg(300, 200), "letter.pdf": onePagePdf() });
    const res = await get(thumb(row("photo.jpg"), "?size=64"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect(res.headers.get("cache-control")).toContain("private");
    const etag = res.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 64, 43]);
    const again = await get(thumb(row("photo.jpg"), "?size=64"), { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    const pdf = await get(thumb(row("letter.pdf"), "?size=256"));
    expect(pdf.status).toBe(200);
    expect((await sharp(Buffer.from(await pdf.arrayBuffer())).metadata()).width).toBe(256);
    // Cached under the data dir.
    expect(t?.deps.previewsDir.startsWith(t?.dir ?? "?")).toBe(true);
  });

  it("answers coded errors: bad size, unknown row, not previewable, missing file, symlink swapped in", async () => {
    const { job, src, row, thumb } = await analyzed({
      "a.jpg": await jpeg(20, 20),
      "b.jpg": await jpeg(20, 20),
      "notes.txt": "plain",
    });
    const code = async (res: Response) => [
      res.status,
      (await json<{ error: { code: string } }>(res)).error.code,
    ];
    expect(await code(await get(thumb(row("a.jpg"), "?size=999")))).toEqual([400, "VALIDATION_FAILED"]);
    expect(await code(await get(`/api/jobs/${job.job_id}/manifest/row_nope/thumbnail`))).toEqual([
      404,
      "ROW_NOT_FOUND",
    ]);
    expect(await code(await get(thumb(row("notes.txt"))))).toEqual([415, "NOT_PREVIEWABLE"]);
    unlinkSync(join(src, "a.jpg"));
    expect(await code(await get(thumb(row("a.jpg"))))).toEqual([404, "FILE_MISSING"]);
    // b.jpg replaced by a symlink to a file outside the roots: never followed.
    const outside = join(t?.dir ?? "", "..", `outside-${Date.now()}.jpg`);
    writeFileSync(outside, await jpeg(20, 20));
    renameSync(join(src, "b.jpg"), join(src, "b-moved.jpg"));
    symlinkSync(outside, join(src, "b.jpg"));
    try {
      expect(await code(await get(thumb(row("b.jpg"))))).toEqual([422, "FILE_UNREADABLE"]);
    } finally {
      unlinkSync(outside);
    }
  });

  it("previews a conflict: its files and what each resolution leaves", async () => {
    const { job } = await analyzed({ "x/a.jpg": await jpeg(30, 20), "y/a.jpg": await jpeg(20, 30) });
    const list = await json<{ items: Array<{ conflict_id: string; kind: string }> }>(
      await get(`/api/jobs/${job.job_id}/manifest/conflicts?status=open`),
    );
    const conflict = list.items.find((c) => c.kind === "duplicate_target");
    if (conflict === undefined) throw new Error("no conflict");
    const res = await get(`/api/jobs/${job.job_id}/manifest/conflicts/${conflict.conflict_id}/preview`);
    expect(res.status).toBe(200);
    const preview = await json<ConflictPreview>(res);
    expect(preview.files.map((f) => f.source)).toEqual(["x/a.jpg", "y/a.jpg"]);
    expect(preview.resolutions.find((r) => r.strategy === "keep_both")?.summary).toBe(
      "keep both → a.jpg, a (2).jpg",
    );
    const missing = await get(`/api/jobs/${job.job_id}/manifest/conflicts/cfl_nope/preview`);
    expect(missing.status).toBe(404);
    expect((await json<{ error: { code: string } }>(missing)).error.code).toBe("CONFLICT_NOT_FOUND");
  });
});
