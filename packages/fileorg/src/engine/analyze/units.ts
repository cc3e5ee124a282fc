import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { constants } from "node:fs";
import { lstat, open, opendir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { cleanTagText } from "../../domain/content-meta.js";
import {
  distinctUnitTarget,
  isTrackName,
  type ListingEntry,
  mayBeAlbum,
  mayBePhotoEvent,
  type RowUnit,
  recogniseUnit,
} from "../../domain/units.js";
import { AUDIO_HEAD, audioHeadLength, audioTagsOf } from "../readers/content-meta.js";
import { SKIPPED_DIRECTORIES } from "./walk.js";

/** The most tracks of one candidate album whose tags are read (the rest are judged by the ones read). */
const MAX_TAGGED_TRACKS = 64;

/** A unit found before the scan: what rows say about it, and its folder under the output root. */
export interface PlannedUnit extends RowUnit {
  /** The unit's folder under the output root (absolute). */
  targetRoot: string;
}

/** The units of an analyze, by their folder. */
export interface UnitIndex {
  units: ReadonlyMap<string, PlannedUnit>;
  /** The unit holding `path` (a file under the source folder), if any. */
  find(path: string): PlannedUnit | undefined;
}

/** The stable id of a unit: the same folder in the same manifest is the same unit. */
export function unitIdOf(jobId: string, root: string): string {
  return `unit_${createHash("sha256").update(`${jobId}\0${root}`).digest("hex").slice(0, 20)}`;
}

async function listFolder(dir: string): Promise<ListingEntry[] | undefined> {
  const entries: ListingEntry[] = [];
  try {
    const handle: AsyncIterable<Dirent> = await opendir(dir, { bufferSize: 128 });
    for await (const e of handle) {
      if (e.isDirectory()) entries.push({ name: e.name, kind: "dir" });
      else if (e.isFile()) entries.push({ name: e.name, kind: "file" });
    }
  } catch {
    return undefined;
  }
  return entries;
}

/** Adds the photos' mtimes to a listing (only for a folder that may be a photo event). */
async function withMtimes(dir: string, entries: ListingEntry[]): Promise<ListingEntry[]> {
  return Promise.all(
    entries.map(async (e) => {
      if (e.kind !== "file") return e;
      const st = await lstat(join(dir, e.name)).catch(() => undefined);
      return { ...e, mtime: st?.mtimeMs === undefined ? undefined : Math.trunc(st.mtimeMs) };
    }),
  );
}

/** A track's head (its tags), read without following a symlink; `undefined` when it cannot be read. */
async function trackHead(path: string): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile()) return undefined;
    const first = Buffer.alloc(AUDIO_HEAD);
    const { bytesRead } = await handle.read(first, 0, AUDIO_HEAD, 0);
    const length = audioHeadLength(first.subarray(0, bytesRead));
    return length === 0 ? undefined : first.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Adds the tracks' album tags to a listing (only for a folder that may be an album), one track at a time. */
async function withTags(dir: string, entries: ListingEntry[]): Promise<ListingEntry[]> {
  const out: ListingEntry[] = [];
  let read = 0;
  for (const e of entries) {
    if (e.kind !== "file" || !isTrackName(e.name) || read >= MAX_TAGGED_TRACKS) {
      out.push(e);
      continue;
    }
    read++;
    const head = await trackHead(join(dir, e.name));
    const tags = head === undefined ? undefined : await audioTagsOf(head);
    const album = cleanTagText(tags?.album);
    out.push(
      album === undefined
        ? e
        : {
            ...e,
            tags: {
              album,
              artist: cleanTagText(tags?.artist),
              album_artist: cleanTagText(tags?.album_artist),
            },
          },
    );
  }
  return out;
}

/** What discovering units needs. */
export interface UnitDiscovery {
  jobId: string;
  sourceDir: string;
  outputDir: string;
  recursive: boolean;
  at: number;
  isProtected?: ((path: string) => boolean) | undefined;
}

/**
 * Walks the folders under the source (names only; photo mtimes for a candidate shoot, the tracks' album tags
 * for a candidate album) and recognises the
 * ones that must stay whole (`recogniseUnit`, pure). A unit's folder is not descended into: a project inside
 * a project is part of it. The source folder itself, a folder holding the output folder and a
 * protected folder are never units (they are descended into). Holds only the pending folders and the
 * units found.
 */
export async function discoverUnits(d: UnitDiscovery): Promise<UnitIndex> {
  const units = new Map<string, PlannedUnit>();
  const taken = new Set<string>();
  const stack = [d.sourceDir];
  while (d.recursive && stack.length > 0) {
    const dir = stack.pop();
    if (dir === undefined) break;
    const entries = await listFolder(dir);
    if (entries === undefined) continue;
    // The source folder, a protected folder and a folder holding the output are never a unit.
    const holdsOutput = d.outputDir === dir || d.outputDir.startsWith(`${dir}/`);
    if (dir !== d.sourceDir && !holdsOutput && d.isProtected?.(dir) !== true) {
      const listing = { name: basename(dir), parentName: basename(dirname(dir)), entries, at: d.at };
      const seen = mayBePhotoEvent(listing)
        ? { ...listing, entries: await withMtimes(dir, entries) }
        : mayBeAlbum(listing)
          ? { ...listing, entries: await withTags(dir, entries) }
          : listing;
      const found = recogniseUnit(seen);
      if (found !== undefined) {
        const target = distinctUnitTarget(found.target, taken);
        const id = unitIdOf(d.jobId, dir);
        units.set(dir, {
          id,
          kind: found.kind,
          root: dir,
          reason: found.reason,
          targetRoot: join(d.outputDir, target),
        });
        continue;
      }
    }
    for (const e of entries) {
      if (e.kind !== "dir" || e.name.startsWith(".") || SKIPPED_DIRECTORIES.has(e.name)) continue;
      stack.push(join(dir, e.name));
    }
  }
  return {
    units,
    find(path) {
      if (units.size === 0) return undefined;
      for (let dir = dirname(path); dir.length > d.sourceDir.length; dir = dirname(dir)) {
        const unit = units.get(dir);
        if (unit !== undefined) return unit;
      }
      return undefined;
    },
  };
}

/** Where a file of a unit goes: the same place inside the unit's target folder. */
export function unitTargetOf(unit: PlannedUnit, sourcePath: string): string {
  return join(unit.targetRoot, relative(unit.root, sourcePath));
}

/** What a row stores about its unit. */
export function rowUnitOf(unit: PlannedUnit): RowUnit {
  return { id: unit.id, kind: unit.kind, root: unit.root, reason: unit.reason };
}
