import { isInside } from "./posix-path.js";

/**
 * Where a rule applies: a rule may carry a `location`, a folder; it then matches only rows whose source path
 * is inside that folder ({@link isInside}). A location is written as an absolute path (`/srv/scans`), as
 * `~` or `~/…` (the home directory of the process running the engine), or relative to the analyzed folder
 * (the job's `source_dir`: `Scans`, `photos/2024`). `..` segments are refused. Pure: the analyzed folder and
 * the home directory are given.
 */

/** What a written location is resolved against. */
export interface LocationBase {
  /** The analyzed folder (the job's `source_dir`), absolute. */
  root: string;
  /** The home directory `~` stands for; without it a `~` location matches nothing. */
  home?: string | undefined;
}

/** Why a written location cannot be used, or `undefined` when it can. */
export function locationProblem(path: string): string | undefined {
  if (path.trim() === "") return "a location needs a path";
  if (path.includes("\0")) return "a location may not contain a NUL character";
  if (path.startsWith("~") && path !== "~" && !path.startsWith("~/"))
    return "only `~` or `~/…` (the engine's home directory) may start with ~";
  if (path.split("/").includes("..")) return "a location may not contain `..` segments";
  return undefined;
}

/** `/`-joined segments of an absolute path, `.` and empty segments dropped (`undefined` with a `..`). */
function normalizeAbsolute(path: string): string | undefined {
  const segments: string[] = [];
  for (const s of path.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") return undefined;
    segments.push(s);
  }
  return `/${segments.join("/")}`;
}

/**
 * The absolute, normalized folder a written location stands for, or `undefined` when it cannot be resolved
 * (a `~` location without a home directory, a `..` segment).
 */
export function resolveLocation(path: string, base: LocationBase | undefined): string | undefined {
  if (locationProblem(path) !== undefined) return undefined;
  if (path.startsWith("/")) return normalizeAbsolute(path);
  if (path === "~" || path.startsWith("~/")) {
    return base?.home === undefined ? undefined : normalizeAbsolute(`${base.home}/${path.slice(1)}`);
  }
  return base === undefined ? undefined : normalizeAbsolute(`${base.root}/${path}`);
}

/**
 * A test of a row's source path against a rule's location: always true without one; false when the
 * location cannot be resolved.
 */
export function locationTest(
  location: string | undefined,
  base: LocationBase | undefined,
): (sourcePath: string) => boolean {
  if (location === undefined) return () => true;
  const folder = resolveLocation(location, base);
  if (folder === undefined) return () => false;
  return (sourcePath) => isInside(folder, sourcePath);
}

/** The depth of a resolved folder (`/` is 0, `/a/b` is 2); unresolved: -1. */
function depthOf(location: string | undefined, base: LocationBase): number {
  if (location === undefined) return -1;
  const folder = resolveLocation(location, base);
  return folder === undefined ? -1 : folder.split("/").filter((s) => s !== "").length;
}

/**
 * The evaluation order of a rules file's rules over one analyzed folder: the rules of the most specific
 * location first (the deepest resolved folder), then those of less specific ones, then the global rules;
 * within one location (or among the global rules) the file's order. Priorities are renumbered to that order
 * (the first rule ranks highest). A row only meets the rules of the locations that contain it, so for each
 * row this is: its innermost location's rules, then its outer ones', then the global ones.
 */
export function rankByLocation<R extends { location?: string | undefined; priority: number }>(
  rules: readonly R[],
  base: LocationBase,
): R[] {
  const ranked = rules
    .map((rule, index) => ({ rule, index, depth: depthOf(rule.location, base) }))
    .sort((a, b) => b.depth - a.depth || a.index - b.index);
  return ranked.map(({ rule }, i) => ({ ...rule, priority: ranked.length - i }));
}
