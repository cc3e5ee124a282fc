import type { Dirent } from "node:fs";
import { lstat, readdir, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";

/** The thumbnail cache's default byte budget (256 MiB): past it, the least recently used entries go. */
export const DEFAULT_PREVIEW_CACHE_BYTES = 256 << 20;
/** After an eviction the cache holds at most this share of the budget, so the next write does not scan again. */
const LOW_WATER = 0.9;

/** A cache fan-out folder (two hex digits) and an entry in it (a sha-256 key and `.webp`): nothing else is ours. */
const FAN_OUT = /^[0-9a-f]{2}$/;
const ENTRY = /^[0-9a-f]{64}\.webp$/;
/** An entry being written: `<entry>.<pid>.<base-36 random>.tmp` (see {@link cacheTempPath}), renamed into place when whole. */
const TEMP = /^[0-9a-f]{64}\.webp\.[0-9]{1,10}\.[0-9a-z]{1,16}\.tmp$/;
/**
 * A temporary file older than this (by its mtime) was left by a write that died (a crash, a kill, a full
 * disk) and is deleted; a younger one may be a write under way and is only counted against the budget.
 */
export const STALE_TEMP_MS = 10 * 60_000;

/** Where a cache entry is written before it is renamed into place (unique per process and write). */
export function cacheTempPath(entry: string): string {
  return `${entry}.${process.pid}.${Math.random().toString(36).slice(2, 12)}.tmp`;
}

/** One cache entry as found on disk: its path, size and when it was last used (its atime, ms). */
interface Entry {
  path: string;
  size: number;
  usedAt: number;
}

/** What this process knows of a cache folder: an estimate of its bytes, and an eviction under way. */
interface CacheState {
  /** Bytes in the folder as last scanned plus what this process wrote since (other processes' writes show at the next scan). */
  bytes: number | undefined;
  evicting: Promise<void> | undefined;
}

const states = new Map<string, CacheState>();

function stateOf(cacheDir: string): CacheState {
  let state = states.get(cacheDir);
  if (state === undefined) {
    state = { bytes: undefined, evicting: undefined };
    states.set(cacheDir, state);
  }
  return state;
}

/** What a scan of the folder found: its entries, and its temporary files (path, size, mtime). */
interface Scan {
  entries: Entry[];
  temps: Array<{ path: string; size: number; modifiedAt: number }>;
}

/**
 * The folder's entries and temporary files, read without following a symlink: only `<2 hex>/<64 hex>.webp`
 * and `<2 hex>/<64 hex>.webp.<pid>.<random>.tmp` regular files.
 */
async function scan(cacheDir: string): Promise<Scan> {
  const found: Scan = { entries: [], temps: [] };
  const folders = await readdir(cacheDir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  for (const folder of folders) {
    // A Dirent of a symlink is never a directory: a link out of the cache is not walked.
    if (!folder.isDirectory() || !FAN_OUT.test(folder.name)) continue;
    const dir = join(cacheDir, folder.name);
    const files = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const file of files) {
      const entry = ENTRY.test(file.name);
      if (!file.isFile() || !(entry || TEMP.test(file.name))) continue;
      const path = join(dir, file.name);
      const facts = await lstat(path).catch(() => undefined);
      if (facts?.isFile() !== true) continue;
      if (entry) found.entries.push({ path, size: facts.size, usedAt: facts.atimeMs });
      else found.temps.push({ path, size: facts.size, modifiedAt: facts.mtimeMs });
    }
  }
  return found;
}

/**
 * Deletes the temporary files last written more than {@link STALE_TEMP_MS} ago (a write that died left
 * them); answers the bytes of the others (writes under way), which count against the budget.
 */
async function sweepTemps(temps: Scan["temps"], now: number): Promise<number> {
  let bytes = 0;
  for (const temp of temps) {
    if (now - temp.modifiedAt > STALE_TEMP_MS) await unlink(temp.path).catch(() => undefined);
    else bytes += temp.size;
  }
  return bytes;
}

/**
 * Deletes stale temporary files, then the least recently used entries until the folder holds at most
 * {@link LOW_WATER} of `maxBytes` (fresh temporary files count, and stay). Only files named as ours,
 * found by walking the folder (never a path from elsewhere, never through a symlink); one that is gone
 * already is skipped. `keep` (the entry just written) goes last.
 */
async function evict(cacheDir: string, maxBytes: number, keep: string, state: CacheState): Promise<void> {
  const { entries, temps } = await scan(cacheDir);
  let bytes = entries.reduce((sum, e) => sum + e.size, await sweepTemps(temps, Date.now()));
  const target = Math.floor(maxBytes * LOW_WATER);
  if (bytes > maxBytes) {
    const order = entries.sort((a, b) => (a.path === keep ? 1 : b.path === keep ? -1 : a.usedAt - b.usedAt));
    for (const entry of order) {
      if (bytes <= target) break;
      await unlink(entry.path).catch(() => undefined);
      bytes -= entry.size;
    }
  }
  state.bytes = bytes;
}

/**
 * Counts a just-written entry against the cache's byte budget, and when the folder goes over it, evicts
 * the least recently used entries (one eviction at a time per folder; a write during one waits for it).
 * The first write of a process to a folder scans it (the cache "opens"), as every eviction does: each scan
 * deletes the temporary files a dead write left (older than {@link STALE_TEMP_MS}).
 * Never throws: a cache that cannot be trimmed still serves (the thumbnail is answered from memory).
 */
export async function afterCacheWrite(
  cacheDir: string,
  written: string,
  size: number,
  maxBytes: number,
): Promise<void> {
  const state = stateOf(cacheDir);
  try {
    await state.evicting;
    if (state.bytes !== undefined && state.bytes + size <= maxBytes) {
      state.bytes += size;
      return;
    }
    // Unknown (first write of this process) or over budget: the folder itself is the truth.
    const run = evict(cacheDir, maxBytes, written, state).finally(() => {
      if (state.evicting === run) state.evicting = undefined;
    });
    state.evicting = run;
    await run;
  } catch {
    state.bytes = undefined; // scan again next time
  }
}

/** Marks a cache entry as used now (its atime; its mtime stays when it was written). Never throws. */
export async function touchCacheEntry(file: string): Promise<void> {
  try {
    const facts = await stat(file);
    await utimes(file, Date.now() / 1000, facts.mtimeMs / 1000);
  } catch {
    // evicted meanwhile: it was served from what was read
  }
}

/** Checks a byte budget: a positive whole number of bytes. */
export function isCacheBudget(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}
