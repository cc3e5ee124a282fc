import picomatch from "picomatch";

/** A file the inbox saw: absolute path, size in bytes, modification time in epoch ms (integer). */
export interface InboxFile {
  path: string;
  size: number;
  mtime: number;
}

/** A source's new stable files since its last analyze, under an id derived from exactly those files. */
export interface InboxBatch {
  watch_source_id: string;
  /** `null` when nothing is new. */
  batch_id: string | null;
  files: InboxFile[];
  /**
   * Why the source was skipped (its folder now resolves outside the allowed roots: `PATH_OUTSIDE_ROOT`; or
   * is missing: `SOURCE_NOT_FOUND`, `NOT_A_DIRECTORY`); nothing of it is listed then.
   */
  error?: { code: string; message: string } | undefined;
}

/** The stability delay used when a watch source names none. */
export const DEFAULT_STABILITY_MS = 5000;

/**
 * Whether a path (relative to the watched folder, `/`-separated) is ignored: any hidden segment, or a match
 * of one of the source's ignore globs (against the relative path, and against the bare name).
 */
export function createIgnoreMatcher(globs: readonly string[]): (relativePath: string) => boolean {
  const matchers = globs.map((g) => picomatch(g, { dot: true }));
  return (rel) => {
    if (rel === "") return false;
    const segments = rel.split("/");
    if (segments.some((s) => s.startsWith("."))) return true;
    const name = segments.at(-1) ?? rel;
    return matchers.some((m) => m(rel) || m(name));
  };
}
