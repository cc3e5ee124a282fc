import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { lstat, opendir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import {
  distinctUnitTarget,
  type ListingEntry,
  mayBePhotoEvent,
  type RowUnit,
  recogniseUnit,
} from "../../domain/units.js";
import { SKIPPED_DIRECTORIES } from "./walk.js";

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
 * Walks the folders under the source (names only; photo mtimes for a candidate shoot) and recognises the
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
