/**
 * What a review row shows besides its name, pure: the folder it came from (relative to the analyzed
 * folder), its content date and where that date was read, and the unit it moves with.
 */

/** Where a row's date comes from (the manifest's `date_source`). */
export type DateSource = "exif" | "pdf" | "office" | "file_name" | "mtime";

const DATE_SOURCES: Record<DateSource, string> = {
  exif: "EXIF",
  pdf: "PDF",
  office: "Office",
  file_name: "file name",
  mtime: "mtime",
};

/** `EXIF`, `file name`, `PDF`, `Office` or `mtime`. */
export function dateSourceLabel(source: DateSource): string {
  return DATE_SOURCES[source];
}

/** A date (ms since the epoch, wall-clock read as UTC by the server) as `YYYY-MM-DD`; `?` when invalid. */
export function contentDate(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "?" : d.toISOString().slice(0, 10);
}

/**
 * The folder a file came from: relative to the analyzed folder (`.` for the folder itself) when the file is
 * inside it, else the absolute parent folder.
 */
export function sourceFolder(sourcePath: string, sourceDir: string | undefined): string {
  const cut = sourcePath.lastIndexOf("/");
  const parent = cut <= 0 ? "/" : sourcePath.slice(0, cut);
  if (sourceDir === undefined || sourceDir === "") return parent;
  const root = sourceDir.endsWith("/") && sourceDir.length > 1 ? sourceDir.slice(0, -1) : sourceDir;
  if (parent === root) return ".";
  return parent.startsWith(`${root}/`) ? parent.slice(root.length + 1) : parent;
}

const UNIT_KINDS: Record<string, string> = {
  software_project: "project",
  document_project: "document project",
  bundle: "bundle",
  music_album: "album",
  photo_event: "photo shoot",
};

/** The unit a row moves with, in words (`album Abbey Road`), or undefined when it moves alone. */
export function unitLabel(unit: { kind: string; root: string } | null): string | undefined {
  if (unit === null) return undefined;
  const name = unit.root.slice(unit.root.lastIndexOf("/") + 1) || unit.root;
  return `${UNIT_KINDS[unit.kind] ?? unit.kind.replaceAll("_", " ")} ${name}`;
}

/** What analyze read from a row's content besides its date (the manifest row's `meta`). */
export interface RowMetaFacts {
  camera_make?: string | undefined;
  camera_model?: string | undefined;
  taken?: number | undefined;
  artist?: string | undefined;
  album_artist?: string | undefined;
  album?: string | undefined;
  title?: string | undefined;
  track?: number | undefined;
}

/** A photo's camera: its model, led by its make unless the model already names it (`Canon EOS 5D`). */
function cameraOf(make: string | undefined, model: string | undefined): string | undefined {
  if (make === undefined) return model;
  if (model === undefined) return make;
  return model.toLowerCase().startsWith(make.toLowerCase()) ? model : `${make} ${model}`;
}

/** A track in words: `Artist — Album, track 3` (the title when neither artist nor album is known). */
function trackOf(meta: RowMetaFacts): string | undefined {
  const who = meta.artist ?? meta.album_artist;
  const named = [who, meta.album].filter((s) => s !== undefined).join(" — ") || meta.title;
  if (named === undefined) return meta.track === undefined ? undefined : `track ${meta.track}`;
  return meta.track === undefined ? named : `${named}, track ${meta.track}`;
}

/**
 * The content metadata of a row in one short line — `Canon EOS 5D · taken 2024-05-01`,
 * `Björk — Homogenic, track 3` — or undefined when analyze read none.
 */
export function metaLabel(meta: RowMetaFacts | null | undefined): string | undefined {
  if (meta === null || meta === undefined) return undefined;
  const parts = [
    cameraOf(meta.camera_make, meta.camera_model),
    meta.taken === undefined ? undefined : `taken ${contentDate(meta.taken)}`,
    trackOf(meta),
  ].filter((s) => s !== undefined);
  return parts.length === 0 ? undefined : parts.join(" · ");
}
