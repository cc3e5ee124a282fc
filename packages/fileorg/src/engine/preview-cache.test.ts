import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { makeThumbnail, type ThumbnailRequest, thumbnailCachePath } from "./previews.js";

let dir = "";

afterEach(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  dir = "";
});

/** A real JPEG of one colour (per seed), so each one's thumbnail is a distinct entry. */
function colouredJpeg(seed: number): Promise<Buffer> {
  return sharp({
    create: { width: 300, height: 200, channels: 3, background: { r: seed * 20, g: 90, b: 200 - seed * 10 } },
  })
    .jpeg()
    .toBuffer();
}

/** Every cache entry (`<2 hex>/<64 hex>.webp`) under `cache` and their total bytes. */
function cacheEntries(cache: string): { names: string[]; bytes: number } {
  const names: string[] = [];
  let bytes = 0;
  for (const folder of readdirSync(cache, { withFileTypes: true })) {
    if (!folder.isDirectory() || !/^[0-9a-f]{2}$/.test(folder.name)) continue;
    for (const file of readdirSync(join(cache, folder.name), { withFileTypes: true })) {
      if (!file.isFile() || !/^[0-9a-f]{64}\.webp$/.test(file.name)) continue;
      names.push(file.name);
      bytes += statSync(join(cache, folder.name, file.name)).size;
    }
  }
  return { names, bytes };
}

describe("the thumbnail cache's byte budget", () => {
  it("stays under a tiny cap after many previews, keeps the most recently used, and never deletes anything not its own", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-preview-cap-")));
    const root = join(dir, "root");
    const outside = join(dir, "outside");
    const cache = join(dir, "data", "previews");
    mkdirSync(root);
    mkdirSync(outside);
    mkdirSync(join(cache, "ab"), { recursive: true });
    // Not ours, though inside the folder or named like an entry: a note, a stray file, and symlinks out.
    const foreignName = `${"c".repeat(64)}.webp`;
    writeFileSync(join(cache, "README"), "kept");
    writeFileSync(join(cache, "ab", "notes.txt"), "kept");
    writeFileSync(join(outside, foreignName), Buffer.alloc(64 << 10, 1));
    symlinkSync(outside, join(cache, "cc"));
    symlinkSync(join(outside, foreignName), join(cache, "ab", `${"a".repeat(64)}.webp`));

    let cap = 1 << 30;
    const request = (i: number): ThumbnailRequest => ({
      roots: [root],
      path: join(root, `photo-${i}.jpg`),
      mime: "image/jpeg",
      size: 256,
      cacheDir: cache,
      cacheMaxBytes: cap,
    });
    const N = 12;
    for (let i = 0; i < N; i++) writeFileSync(join(root, `photo-${i}.jpg`), await colouredJpeg(i));
    // The budget: about three and a half thumbnails (measured on a render outside the folder under test).
    const probe = await makeThumbnail({ ...request(0), cacheDir: join(dir, "probe") });
    cap = Math.floor(probe.data.length * 3.5);
    expect(cap).toBeGreaterThan(100);

    const first = await makeThumbnail(request(0));
    expect(first.cached).toBe(false);
    const etags: string[] = [first.etag];
    for (let i = 1; i < N; i++) {
      etags.push((await makeThumbnail(request(i))).etag);
      // The first one is looked at again after every new one: the most recently used, it must survive.
      expect((await makeThumbnail(request(0))).cached).toBe(true);
      expect(cacheEntries(cache).bytes).toBeLessThanOrEqual(cap);
    }

    const { names, bytes } = cacheEntries(cache);
    expect(bytes).toBeLessThanOrEqual(cap);
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect(names.length).toBeLessThan(N);
    const kept = (etag: string) => existsSync(thumbnailCachePath(cache, etag));
    expect(kept(first.etag)).toBe(true); // the most recently used
    expect(kept(etags[N - 1] ?? "")).toBe(true); // the newest
    expect(kept(etags[1] ?? "")).toBe(false); // the least recently used went first

    // Nothing that is not a cache entry was touched, inside the folder or through a link out of it.
    expect(existsSync(join(cache, "README"))).toBe(true);
    expect(existsSync(join(cache, "ab", "notes.txt"))).toBe(true);
    expect(existsSync(join(outside, foreignName))).toBe(true);
    expect(existsSync(join(cache, "ab", `${"a".repeat(64)}.webp`))).toBe(true);

    // An evicted thumbnail asked for again is rendered anew, same bytes and key.
    const again = await makeThumbnail(request(1));
    expect(again).toMatchObject({ cached: false, etag: etags[1] });
    expect(cacheEntries(cache).bytes).toBeLessThanOrEqual(cap);
  });

  it("answers a thumbnail whose entry is evicted between requests (rendered again)", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-preview-cap-")));
    const root = join(dir, "root");
    mkdirSync(root);
    writeFileSync(join(root, "a.jpg"), await colouredJpeg(1));
    const request: ThumbnailRequest = {
      roots: [root],
      path: join(root, "a.jpg"),
      mime: "image/jpeg",
      size: 128,
      cacheDir: join(dir, "cache"),
      cacheMaxBytes: 1, // smaller than any thumbnail: every write evicts, even its own entry
    };
    const one = await makeThumbnail(request);
    expect(one.data.length).toBeGreaterThan(0);
    expect(existsSync(thumbnailCachePath(request.cacheDir, one.etag))).toBe(false);
    const two = await makeThumbnail(request);
    expect(two).toMatchObject({ cached: false, etag: one.etag });
    expect(two.data.equals(one.data)).toBe(true);
  });

  it("refuses a budget that is not a positive whole number of bytes", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-preview-cap-")));
    const base = { roots: [dir], path: join(dir, "x.jpg"), mime: "image/jpeg", size: 64 as const };
    for (const cacheMaxBytes of [0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      await expect(makeThumbnail({ ...base, cacheDir: join(dir, "c"), cacheMaxBytes })).rejects.toThrow(
        RangeError,
      );
    }
  });
});
