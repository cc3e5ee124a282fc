import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { lutimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { STALE_TEMP_MS } from "./preview-cache.js";
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
/** A fresh folder (`dir`) with one JPEG under `root/`, and the 128 px thumbnail request for it. */
async function oneJpeg(
  prefix: string,
  seed: number,
  extra: Partial<ThumbnailRequest> = {},
): Promise<ThumbnailRequest> {
  dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const root = join(dir, "root");
  mkdirSync(root);
  writeFileSync(join(root, "a.jpg"), await colouredJpeg(seed));
  return {
    roots: [root],
    path: join(root, "a.jpg"),
    mime: "image/jpeg",
    size: 128,
    cacheDir: join(dir, "cache"),
    ...extra,
  };
}

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
    // smaller than any thumbnail: every write evicts, even its own entry
    const request = await oneJpeg("fileorg-preview-cap-", 1, { cacheMaxBytes: 1 });
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

  it("deletes the temporary files a dead write left (stale, named as its own, regular), never a fresh one or anything else", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-preview-temps-")));
    const root = join(dir, "root");
    const outside = join(dir, "outside");
    const cache = join(dir, "cache");
    mkdirSync(root);
    mkdirSync(outside);
    mkdirSync(join(cache, "ab"), { recursive: true });
    mkdirSync(join(cache, "cd"));
    const key = (c: string) => `${c.repeat(64)}.webp`;
    const old = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
    const recent = (Date.now() - STALE_TEMP_MS / 2) / 1000;
    /** Writes `bytes` at `path` last modified at `at` (seconds). */
    const file = (path: string, at: number, bytes = 4096) => {
      writeFileSync(path, Buffer.alloc(bytes, 7));
      utimesSync(path, at, at);
      return path;
    };
    // Left by writes that died long ago: gone after the scan.
    const stale = [
      file(join(cache, "ab", `${key("a")}.4242.k3j9x0q1.tmp`), old),
      file(join(cache, "cd", `${key("c")}.1.z.tmp`), old),
    ];
    // A write under way (younger than the limit): kept, and counted against the budget.
    const fresh = file(join(cache, "ab", `${key("b")}.4243.abc123.tmp`), recent);
    // Old, but not the cache's own temporary files: kept.
    const foreign = [
      file(join(cache, "ab", "notes.tmp"), old),
      file(join(cache, "ab", `${key("d")}.tmp`), old),
      file(join(cache, "ab", `${key("e")}.12.ABC.tmp`), old),
      file(join(cache, `${key("f")}.7.x.tmp`), old), // at the top of the folder, not in a fan-out folder
    ];
    // A symlink named like a temporary file, itself old, to a file outside: neither is touched.
    const target = file(join(outside, "precious.bin"), old);
    const link = join(cache, "cd", `${key("9")}.77.abc.tmp`);
    symlinkSync(target, link);
    await lutimes(link, old, old);
    // A directory named like a temporary file: kept.
    const folder = join(cache, "cd", `${key("8")}.78.abc.tmp`);
    mkdirSync(folder);
    utimesSync(folder, old, old);

    writeFileSync(join(root, "a.jpg"), await colouredJpeg(3));
    const request: ThumbnailRequest = {
      roots: [root],
      path: join(root, "a.jpg"),
      mime: "image/jpeg",
      size: 128,
      cacheDir: cache,
      cacheMaxBytes: 1 << 30,
    };
    // The first write of this process to the folder scans it (the cache opens).
    const made = await makeThumbnail(request);
    expect(made.cached).toBe(false);
    for (const path of stale) expect(existsSync(path), path).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    for (const path of foreign) expect(existsSync(path), path).toBe(true);
    expect(existsSync(link)).toBe(true);
    expect(existsSync(target)).toBe(true);
    expect(existsSync(folder)).toBe(true);
    expect(existsSync(thumbnailCachePath(cache, made.etag))).toBe(true);
    // No temporary file of the write that succeeded is left.
    const left = readdirSync(join(cache, made.etag.slice(0, 2))).filter((n) => n.startsWith(made.etag));
    expect(left).toEqual([`${made.etag}.webp`]);
  });

  it("counts a fresh temporary file against the budget at an eviction, and deletes it there once stale", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-preview-temps-")));
    const root = join(dir, "root");
    const cache = join(dir, "cache");
    mkdirSync(root);
    mkdirSync(join(cache, "ab"), { recursive: true });
    for (let i = 0; i < 3; i++) writeFileSync(join(root, `p${i}.jpg`), await colouredJpeg(i));
    const request = (i: number, cacheMaxBytes: number): ThumbnailRequest => ({
      roots: [root],
      path: join(root, `p${i}.jpg`),
      mime: "image/jpeg",
      size: 128,
      cacheDir: cache,
      cacheMaxBytes,
    });
    const probe = await makeThumbnail({ ...request(0, 1 << 30), cacheDir: join(dir, "probe") });
    const cap = probe.data.length * 4;
    // A write under way, as big as the whole budget: with it counted, the next write evicts down to 90%.
    const temp = join(cache, "ab", `${"a".repeat(64)}.webp.99.fresh.tmp`);
    writeFileSync(temp, Buffer.alloc(cap, 1));
    const first = await makeThumbnail(request(0, cap));
    expect(existsSync(temp)).toBe(true); // fresh: never deleted
    expect(existsSync(thumbnailCachePath(cache, first.etag))).toBe(false); // evicted: the temp took the room

    // The same file, left behind: once stale, the next eviction deletes it and the entries fit again.
    const old = (Date.now() - STALE_TEMP_MS - 1000) / 1000;
    utimesSync(temp, old, old);
    const second = await makeThumbnail(request(1, cap));
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(thumbnailCachePath(cache, second.etag))).toBe(true);
  });

  it("removes its temporary file when the write of an entry fails", async () => {
    const request = await oneJpeg("fileorg-preview-temps-", 5);
    const { etag } = await makeThumbnail(request);
    const entry = thumbnailCachePath(request.cacheDir, etag);
    // A directory where the entry goes: the temporary file is written, its rename into place fails.
    rmSync(entry);
    mkdirSync(entry);
    await expect(makeThumbnail(request)).rejects.toThrow();
    expect(readdirSync(join(request.cacheDir, etag.slice(0, 2))).filter((n) => n.endsWith(".tmp"))).toEqual(
      [],
    );
  });
});
