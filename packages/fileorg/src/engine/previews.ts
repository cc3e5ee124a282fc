import { createHash } from "node:crypto";
import { closeSync, readFile } from "node:fs";
import { mkdir, readFile as readPath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { type PreviewKind, previewKindOf } from "../domain/preview-kind.js";
import { FileorgError } from "../errors.js";
import { confinedFs } from "./confined-fs.js";
import {
  afterCacheWrite,
  cacheTempPath,
  DEFAULT_PREVIEW_CACHE_BYTES,
  isCacheBudget,
  touchCacheEntry,
} from "./preview-cache.js";
import { renderImageThumbnail, renderPdfFirstPage, THUMBNAIL_TYPE } from "./preview-render.js";

export { type PreviewKind, previewKindOf } from "../domain/preview-kind.js";
export { DEFAULT_PREVIEW_CACHE_BYTES } from "./preview-cache.js";
export { loadOptional, PREVIEW_PACKAGES, THUMBNAIL_TYPE } from "./preview-render.js";

/** The thumbnail sizes (px on the longest side) a caller may ask for: a few, so the cache stays small. */
export const THUMBNAIL_SIZES = [64, 128, 256, 512] as const;
/** A thumbnail size. */
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** The largest file a thumbnail is rendered from (bytes); a larger one is NOT_PREVIEWABLE. */
export const MAX_PREVIEW_BYTES = 64 << 20;
/** Bumped when the rendering changes, so old cache entries are no longer used. */
const RENDER_VERSION = "1";
/** Renders at once (decoding is CPU-bound); more wait their turn. */
const MAX_RENDERS = 2;

/** A thumbnail request: the file, where it may be read, and the cache folder (the caller's). */
export interface ThumbnailRequest {
  /** The allowed roots: the file is opened through the confined layer inside them. */
  roots: readonly string[];
  /** Absolute path of the file. */
  path: string;
  mime: string | null | undefined;
  size: ThumbnailSize;
  /** Where rendered thumbnails are kept (e.g. `<data dir>/previews`); created when missing. */
  cacheDir: string;
  /**
   * The cache folder's byte budget (default {@link DEFAULT_PREVIEW_CACHE_BYTES}, 256 MiB): a write that
   * takes the folder over it evicts the least recently used entries (only the cache's own entries).
   */
  cacheMaxBytes?: number | undefined;
}

/** A rendered (or cached) thumbnail. */
export interface Thumbnail {
  data: Buffer;
  contentType: typeof THUMBNAIL_TYPE;
  /** The cache key: changes when the file (path, inode, size, mtime, ctime) or the size asked for changes. */
  etag: string;
  kind: PreviewKind;
  /** True when it came from the cache (nothing rendered). */
  cached: boolean;
}

const readFd = promisify((fd: number, cb: (err: NodeJS.ErrnoException | null, data: Buffer) => void) =>
  readFile(fd, cb),
);

/** The typed error for a file the confined layer refused or could not open. */
function openError(code: string, path: string): FileorgError {
  switch (code) {
    case "ENOENT":
      return new FileorgError("FILE_MISSING", "The file is no longer where the manifest says it is.", {
        path,
      });
    case "OUTSIDE_ROOT":
      return new FileorgError("PATH_OUTSIDE_ROOT", `The path ${path} resolves outside the allowed roots.`, {
        path,
      });
    case "NOT_A_FILE":
      return new FileorgError("FILE_UNREADABLE", "The path is not a regular file (a folder or a symlink).", {
        path,
        reason: code,
      });
    default:
      return new FileorgError("FILE_UNREADABLE", `The file cannot be read (${code}).`, {
        path,
        reason: code,
      });
  }
}

let running = 0;
const waiting: Array<() => void> = [];
const inFlight = new Map<string, Promise<Buffer>>();

async function withRenderSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_RENDERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function readCached(file: string): Promise<Buffer | undefined> {
  try {
    return await readPath(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes a cache entry whole or not at all (a temporary file renamed into place; removed if the write
 * fails, and if this process dies first, by a later scan of the cache once it is stale).
 */
async function writeCached(file: string, dir: string, data: Buffer): Promise<void> {
  await mkdir(dir, { recursive: true });
  const temp = cacheTempPath(file);
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** Where the cache entry of `key` lives (two-level fan-out: 256 folders). */
export function thumbnailCachePath(cacheDir: string, key: string): string {
  return join(cacheDir, key.slice(0, 2), `${key}.webp`);
}

/**
 * A thumbnail of an image or of a PDF's first page, as WebP, at most `size` px on its longest side. The
 * file is opened through the confined layer (real parent inside `roots`, `O_NOFOLLOW`: never through a
 * symlink, never outside the roots) and read from that descriptor only. Thumbnails are cached in
 * `cacheDir` under a key of the file's real path, identity (inode, size, mtime, ctime) and the size, so a
 * second call renders nothing; a changed file gets a new key. The folder keeps to `cacheMaxBytes`: a write
 * past it evicts the least recently used entries (a hit marks its entry used); an entry evicted while
 * being served was already read, and one asked for again is rendered anew. Throws NOT_PREVIEWABLE (type, or larger than
 * {@link MAX_PREVIEW_BYTES}), FILE_MISSING, PATH_OUTSIDE_ROOT, FILE_UNREADABLE, PREVIEW_FAILED (damaged
 * file) or PREVIEW_UNAVAILABLE (the optional package for this kind is not installed).
 */
export async function makeThumbnail(request: ThumbnailRequest): Promise<Thumbnail> {
  const maxBytes = request.cacheMaxBytes ?? DEFAULT_PREVIEW_CACHE_BYTES;
  if (!isCacheBudget(maxBytes))
    throw new RangeError(`cacheMaxBytes must be a positive whole number of bytes, not ${maxBytes}.`);
  const kind = previewKindOf(request.mime);
  if (kind === undefined) {
    throw new FileorgError(
      "NOT_PREVIEWABLE",
      `No thumbnail for files of type ${request.mime ?? "unknown"}.`,
      {
        mime: request.mime ?? null,
      },
    );
  }
  const opened = confinedFs.openReadIn(request.roots, request.path);
  if (opened.code !== undefined) throw openError(opened.code, request.path);
  let fdOpen = true;
  const closeFd = () => {
    if (fdOpen) closeSync(opened.fd);
    fdOpen = false;
  };
  try {
    const { facts } = opened;
    if (facts.size > MAX_PREVIEW_BYTES) {
      throw new FileorgError("NOT_PREVIEWABLE", `The file is too large to preview (${facts.size} bytes).`, {
        size: facts.size,
        max: MAX_PREVIEW_BYTES,
      });
    }
    const identity = [opened.path, facts.dev, facts.ino, facts.size, facts.mtime, facts.ctime].join("\0");
    const key = createHash("sha256")
      .update(`${RENDER_VERSION}\0${kind}\0${request.size}\0${identity}`)
      .digest("hex");
    const file = thumbnailCachePath(request.cacheDir, key);
    const hit = await readCached(file);
    if (hit !== undefined) {
      await touchCacheEntry(file);
      return { data: hit, contentType: THUMBNAIL_TYPE, etag: key, kind, cached: true };
    }
    let render = inFlight.get(key);
    if (render === undefined) {
      const bytes = await readFd(opened.fd);
      closeFd();
      render = withRenderSlot(async () => {
        const data =
          kind === "image"
            ? await renderImageThumbnail(bytes, request.size)
            : await renderPdfFirstPage(bytes, request.size);
        await writeCached(file, join(request.cacheDir, key.slice(0, 2)), data);
        await afterCacheWrite(request.cacheDir, file, data.length, maxBytes);
        return data;
      }).finally(() => inFlight.delete(key));
      inFlight.set(key, render);
    }
    const data = await render;
    return { data, contentType: THUMBNAIL_TYPE, etag: key, kind, cached: false };
  } finally {
    closeFd();
  }
}

/** When the cache entry of a thumbnail was written (ms), or undefined: for tests and diagnostics. */
export async function cachedAt(cacheDir: string, etag: string): Promise<number | undefined> {
  try {
    return (await stat(thumbnailCachePath(cacheDir, etag))).mtimeMs;
  } catch {
    return undefined;
  }
}
