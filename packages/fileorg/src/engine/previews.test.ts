import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { FileorgError } from "../errors.js";
import { onePagePdf, solidPng } from "../tests/content-fixtures.js";
import { createHarness, type Harness, writeTree } from "../tests/harness.js";
import { loadOptional } from "./preview-render.js";
import { cachedAt, makeThumbnail, thumbnailCachePath } from "./previews.js";

const LOCAL = { actor: "local" };

/** A real JPEG of `width` × `height` (solid red). */
function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 220, g: 20, b: 20 } } })
    .jpeg()
    .toBuffer();
}

let dir = "";
let h: Harness | undefined;

function setup(): { root: string; outside: string; cache: string } {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-previews-")));
  const root = join(dir, "root");
  const outside = join(dir, "outside");
  const cache = join(dir, "data", "previews");
  mkdirSync(root);
  mkdirSync(outside);
  return { root, outside, cache };
}

afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  dir = "";
});

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    if (err instanceof FileorgError) return err.code;
    throw err;
  }
  return "no error";
}

describe("thumbnails", () => {
  it("renders a JPEG's thumbnail as WebP, then serves it from the cache without rendering again", async () => {
    const { root, cache } = setup();
    const file = join(root, "photo.jpg");
    writeFileSync(file, await jpeg(400, 300));
    const request = { roots: [root], path: file, mime: "image/jpeg", size: 128 as const, cacheDir: cache };
    const first = await makeThumbnail(request);
    expect(first).toMatchObject({ contentType: "image/webp", kind: "image", cached: false });
    const meta = await sharp(first.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 128, 96]);
    const written = await cachedAt(cache, first.etag);
    expect(written).toBeDefined();
    // Age the cache entry: a re-render would write it anew and move its mtime.
    const old = new Date("2020-01-01T00:00:00Z");
    utimesSync(thumbnailCachePath(cache, first.etag), old, old);
    const second = await makeThumbnail(request);
    expect(second.cached).toBe(true);
    expect(second.etag).toBe(first.etag);
    expect(second.data.equals(first.data)).toBe(true);
    expect(await cachedAt(cache, first.etag)).toBe(old.getTime());
  });

  it("renders a PNG made without any image library (the fixture the web e2e uses)", async () => {
    const { root, cache } = setup();
    const file = join(root, "plain.png");
    writeFileSync(file, solidPng(90, 30, [0, 160, 0]));
    const thumb = await makeThumbnail({
      roots: [root],
      path: file,
      mime: "image/png",
      size: 64,
      cacheDir: cache,
    });
    const stats = await sharp(thumb.data).stats();
    expect((await sharp(thumb.data).metadata()).width).toBe(64);
    // Lossy WebP: the green channel stays within a few levels of 160.
    expect(Math.abs((stats.channels[1]?.mean ?? 0) - 160)).toBeLessThan(5);
  });

  it("gives a changed file a new cache key", async () => {
    const { root, cache } = setup();
    const file = join(root, "a.png");
    writeFileSync(
      file,
      await sharp({ create: { width: 50, height: 50, channels: 3, background: "#0f0" } })
        .png()
        .toBuffer(),
    );
    const request = { roots: [root], path: file, mime: "image/png", size: 64 as const, cacheDir: cache };
    const before = await makeThumbnail(request);
    writeFileSync(
      file,
      await sharp({ create: { width: 60, height: 30, channels: 3, background: "#00f" } })
        .png()
        .toBuffer(),
    );
    const after = await makeThumbnail(request);
    expect(after.etag).not.toBe(before.etag);
    expect(after.cached).toBe(false);
    expect((await sharp(after.data).metadata()).width).toBe(60);
  });

  it("renders a PDF's first page", async () => {
    const { root, cache } = setup();
    const file = join(root, "letter.pdf");
    writeFileSync(file, onePagePdf());
    const thumb = await makeThumbnail({
      roots: [root],
      path: file,
      mime: "application/pdf",
      size: 128,
      cacheDir: cache,
    });
    expect(thumb.kind).toBe("pdf");
    const meta = await sharp(thumb.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 128, 64]);
    // The middle of the page is the blue rectangle, the corner the white page.
    const { data, info } = await sharp(thumb.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3),
    ];
    const [r, g, b] = px(64, 32);
    expect(b).toBeGreaterThan(200);
    expect(r).toBeLessThan(60);
    expect(g).toBeLessThan(60);
    expect(Math.min(...px(1, 1))).toBeGreaterThan(200);
  });

  it("refuses a path outside the roots", async () => {
    const { root, outside, cache } = setup();
    const file = join(outside, "secret.jpg");
    writeFileSync(file, await jpeg(20, 20));
    const work = makeThumbnail({ roots: [root], path: file, mime: "image/jpeg", size: 64, cacheDir: cache });
    expect(await codeOf(work)).toBe("PATH_OUTSIDE_ROOT");
    expect(
      await codeOf(
        makeThumbnail({
          roots: [root],
          path: join(root, "..", "outside", "secret.jpg"),
          mime: "image/jpeg",
          size: 64,
          cacheDir: cache,
        }),
      ),
    ).toBe("PATH_OUTSIDE_ROOT");
  });

  it("refuses a symlinked file or folder that escapes the root", async () => {
    const { root, outside, cache } = setup();
    writeFileSync(join(outside, "secret.jpg"), await jpeg(20, 20));
    symlinkSync(join(outside, "secret.jpg"), join(root, "link.jpg"));
    symlinkSync(outside, join(root, "door"));
    const ask = (path: string) =>
      codeOf(makeThumbnail({ roots: [root], path, mime: "image/jpeg", size: 64, cacheDir: cache }));
    expect(await ask(join(root, "link.jpg"))).toBe("FILE_UNREADABLE");
    expect(await ask(join(root, "door", "secret.jpg"))).toBe("PATH_OUTSIDE_ROOT");
  });

  it("answers NOT_PREVIEWABLE, FILE_MISSING and PREVIEW_FAILED with their codes", async () => {
    const { root, cache } = setup();
    writeFileSync(join(root, "notes.txt"), "hello");
    writeFileSync(join(root, "broken.jpg"), Buffer.from("not a jpeg at all"));
    const ask = (name: string, mime: string) =>
      codeOf(makeThumbnail({ roots: [root], path: join(root, name), mime, size: 64, cacheDir: cache }));
    expect(await ask("notes.txt", "text/plain")).toBe("NOT_PREVIEWABLE");
    expect(await ask("drawing.svg", "image/svg+xml")).toBe("NOT_PREVIEWABLE");
    expect(await ask("gone.jpg", "image/jpeg")).toBe("FILE_MISSING");
    expect(await ask("broken.jpg", "image/jpeg")).toBe("PREVIEW_FAILED");
  });

  it("names the optional package to install when it is missing", async () => {
    const err = await loadOptional("@vetted/not-installed-renderer").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileorgError);
    expect(err).toMatchObject({
      code: "PREVIEW_UNAVAILABLE",
      details: { package: "@vetted/not-installed-renderer" },
    });
    expect((err as Error).message).toContain("npm install @vetted/not-installed-renderer");
  });
});

describe("row thumbnails and conflict previews", () => {
  it("thumbnails a manifest row and previews each resolution of a duplicate target", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    const photo = await jpeg(64, 48);
    writeTree(src, { "x/a.jpg": photo, "y/a.jpg": await jpeg(80, 40), "notes.txt": "hi" });
    const job = await h.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const rows = (await h.engine.listRows(job.job_id)).items;
    const row = rows.find((r) => r.source_path.endsWith("x/a.jpg"));
    const text = rows.find((r) => r.source_path.endsWith("notes.txt"));
    if (row === undefined || text === undefined) throw new Error("rows missing");
    const cacheDir = join(h.dir, "cache");
    const thumb = await h.engine.thumbnailRow(job.job_id, row.row_id, { size: 64, cacheDir });
    expect((await sharp(thumb.data).metadata()).width).toBe(64);
    expect(await codeOf(h.engine.thumbnailRow(job.job_id, text.row_id, { size: 64, cacheDir }))).toBe(
      "NOT_PREVIEWABLE",
    );
    expect(await codeOf(h.engine.thumbnailRow(job.job_id, "row_nope", { size: 64, cacheDir }))).toBe(
      "ROW_NOT_FOUND",
    );

    const conflict = (await h.engine.listConflicts(job.job_id)).items.find(
      (c) => c.kind === "duplicate_target",
    );
    if (conflict === undefined) throw new Error("no duplicate_target conflict");
    const preview = await h.engine.previewConflict(job.job_id, conflict.conflict_id);
    expect(preview.files.map((f) => [f.source, f.previewable])).toEqual([
      ["x/a.jpg", true],
      ["y/a.jpg", true],
    ]);
    const target = preview.files[0]?.target ?? "";
    expect(target.startsWith("/")).toBe(false);
    const keep = preview.resolutions.find((r) => r.strategy === "keep_both");
    const renamed = target.replace(/a\.jpg$/, "a (2).jpg");
    expect(keep?.files.map((f) => f.target)).toEqual([target, renamed]);
    expect(keep?.summary).toBe("keep both → a.jpg, a (2).jpg");
    const skip = preview.resolutions.find((r) => r.strategy === "skip");
    expect(skip?.files.map((f) => f.action)).toEqual(["move", "skip"]);
    const dup = preview.resolutions.find((r) => r.strategy === "move_to_duplicates");
    expect(dup).toMatchObject({ applicable: false, refused: { code: "STRATEGY_NOT_APPLICABLE" } });
    // A dry run: nothing changed.
    const still = (await h.engine.listConflicts(job.job_id, { status: "open" })).items;
    expect(still.map((c) => c.conflict_id)).toContain(conflict.conflict_id);
  });
});
