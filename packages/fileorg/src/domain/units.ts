import { z } from "zod";
import { dateFromFileName } from "./content-date.js";
import { sanitizeSegment } from "./template.js";

/**
 * Folders that must stay whole ("units"): recognised from a folder's listing alone (names, kinds and, for
 * photos, mtimes), planned as one group of rows that are approved, edited, applied and rolled back together,
 * their inside kept intact — hidden files, `.git`, `node_modules` included. Pure: no I/O, no clock.
 */
export const UNIT_KINDS = [
  "software_project",
  "document_project",
  "bundle",
  "music_album",
  "photo_event",
] as const;
/** What kind of folder a unit is. */
export type UnitKind = (typeof UNIT_KINDS)[number];

/** One entry of a folder's listing. */
export interface ListingEntry {
  name: string;
  kind: "file" | "dir";
  /** Modification time (ms), when known (the photos of a candidate photo event). */
  mtime?: number | undefined;
  /** A track's tags, when read (the tracks of a candidate album). */
  tags?: AlbumTags | undefined;
}

/** The tags that say which album a track belongs to. */
export interface AlbumTags {
  artist?: string | undefined;
  album_artist?: string | undefined;
  album?: string | undefined;
}

/** A folder as the recogniser sees it: its own name, its parent's name and its direct entries. */
export interface FolderListing {
  name: string;
  parentName: string;
  entries: readonly ListingEntry[];
  /** The analysis time (ms): a date in a name later than it is no date. */
  at: number;
}

/** A recognised unit (before it gets an id and a target). */
export interface Recognition {
  kind: UnitKind;
  /** Why it was recognised, in words a person can check (`has .git`, `has package.json`). */
  reason: string;
  /** The unit's folder under the output root, relative (`projects/website`). */
  target: string;
}

const VCS_DIRS = [".git", ".hg", ".svn", ".bzr", "_darcs", ".fossil"];
const MANIFESTS = [
  "package.json",
  "pyproject.toml",
  "setup.py",
  "Cargo.toml",
  "go.mod",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "CMakeLists.txt",
  "composer.json",
  "Gemfile",
  "mix.exs",
  "deno.json",
  "pubspec.yaml",
  "Package.swift",
];
const MANIFEST_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/\.sln$/i, "a Visual Studio solution"],
  [/\.xcodeproj$/i, "an Xcode project"],
  [/\.csproj$/i, "a .NET project"],
];
const SOURCE_EXT = /\.(c|cc|cpp|cxx|h|hpp|rs|go|py|js|ts|java|swift|m|rb|f90|s)$/i;
const BUNDLE_EXT =
  /\.(app|photoslibrary|band|bundle|framework|plugin|kext|pkg|logicx|fcpbundle|imovielibrary|rtfd|sparsebundle|xcarchive|lrdata|aplibrary|musiclibrary|tvlibrary)$/i;
const AUDIO_EXT = /\.(mp3|m4a|flac|ogg|opus|wav|aiff?|wma|alac|ape)$/i;
const PHOTO_EXT = /\.(jpe?g|png|heic|heif|tiff?|dng|cr2|cr3|nef|arw|raf|orf|rw2|webp|avif)$/i;
const LATEX_FIGURE_DIRS = /^(fig|figs|figures|images|img|plots|graphics)$/i;

/** Files a folder may hold next to an album's tracks or a shoot's photos (covers, playlists, sidecars). */
const SIDECAR_EXT = /\.(jpe?g|png|m3u8?|cue|log|txt|nfo|xmp|aae|pdf)$/i;

const isFile = (e: ListingEntry) => e.kind === "file";
const seg = (s: string) => sanitizeSegment(s);

function softwareReason(entries: readonly ListingEntry[]): string | undefined {
  const names = new Set(entries.map((e) => e.name));
  const vcs = VCS_DIRS.find((d) => names.has(d));
  if (vcs !== undefined) return `has ${vcs}`;
  const manifest = MANIFESTS.find((m) => entries.some((e) => isFile(e) && e.name === m));
  if (manifest !== undefined) return `has ${manifest}`;
  for (const [pattern, what] of MANIFEST_PATTERNS) {
    const hit = entries.find((e) => pattern.test(e.name));
    if (hit !== undefined) return `has ${hit.name} (${what})`;
  }
  if (names.has("Makefile") && entries.some((e) => isFile(e) && SOURCE_EXT.test(e.name)))
    return "has a Makefile and sources";
  return undefined;
}

function latexReason(entries: readonly ListingEntry[]): string | undefined {
  const tex = entries.filter((e) => isFile(e) && /\.tex$/i.test(e.name));
  if (tex.length === 0) return undefined;
  const figures = entries.find((e) => e.kind === "dir" && LATEX_FIGURE_DIRS.test(e.name));
  const bib = entries.find((e) => isFile(e) && /\.(bib|cls|sty)$/i.test(e.name));
  if (figures === undefined && bib === undefined && tex.length < 2) return undefined;
  const with_ = [figures === undefined ? undefined : `${figures.name}/`, bib?.name].filter(Boolean);
  return `LaTeX project: ${tex.length} .tex file(s) with ${with_.join(" and ") || "each other"}`;
}

/** A folder of two or more tracks and nothing but sidecars: an album, by folder and file-name pattern. */
function albumReason(entries: readonly ListingEntry[]): string | undefined {
  const files = entries.filter(isFile).filter((e) => !e.name.startsWith("."));
  const tracks = files.filter((e) => AUDIO_EXT.test(e.name));
  if (tracks.length < 2 || entries.some((e) => e.kind === "dir" && !e.name.startsWith("."))) return undefined;
  if (!files.every((e) => AUDIO_EXT.test(e.name) || SIDECAR_EXT.test(e.name))) return undefined;
  const numbered = tracks.filter((e) => /^(\d{1,3}|track\s*\d{1,3})\b|^\d{1,3}[\s._-]/i.test(e.name));
  const how = numbered.length === tracks.length ? "numbered tracks" : "tracks";
  return `album folder: ${tracks.length} ${how} in one folder`;
}

/** Whether the listing may be a music album (the caller then reads its tracks' tags). */
export function mayBeAlbum(listing: FolderListing): boolean {
  return albumReason(listing.entries) !== undefined;
}

/** Whether a listing entry is a track (by its name). */
export function isTrackName(name: string): boolean {
  return AUDIO_EXT.test(name);
}

const key = (s: string) => s.normalize("NFC").toLowerCase();

/** The one value every track that has it agrees on (any case), `null` when tracks disagree, `undefined` when none has it. */
function common(values: ReadonlyArray<string | undefined>): string | null | undefined {
  let found: string | undefined;
  for (const v of values) {
    if (v === undefined) continue;
    if (found === undefined) found = v;
    else if (key(found) !== key(v)) return null;
  }
  return found;
}

/** What an album folder's tags say: its album and artist, or that its tracks belong to several albums. */
export type AlbumByTags = { album: string; artist: string; tagged: number } | { albums: number } | undefined;

/**
 * The album a folder's tracks share by their tags: the album tag every tagged track agrees on, filed under
 * the album artist they agree on, else the artist, else `Various Artists` when the artists differ.
 * `{ albums }`: the tracks name several albums (no album unit). `undefined`: no track has an album tag.
 */
export function albumByTags(entries: readonly ListingEntry[]): AlbumByTags {
  const tracks = entries.filter((e) => isFile(e) && AUDIO_EXT.test(e.name) && e.tags?.album !== undefined);
  if (tracks.length === 0) return undefined;
  const album = common(tracks.map((e) => e.tags?.album));
  if (album === null || album === undefined)
    return { albums: new Set(tracks.map((e) => key(e.tags?.album ?? ""))).size };
  const albumArtist = common(tracks.map((e) => e.tags?.album_artist));
  const artist = common(tracks.map((e) => e.tags?.artist));
  const by = albumArtist ?? (artist === null ? "Various Artists" : artist) ?? "Unknown Artist";
  return { album, artist: by, tagged: tracks.length };
}

/** The album unit of a folder found by its pattern: its tags' album and artist when they agree. */
function albumOf(listing: FolderListing, reason: string): Recognition | undefined {
  const tagged = albumByTags(listing.entries);
  if (tagged !== undefined && "albums" in tagged) return undefined;
  if (tagged !== undefined)
    return {
      kind: "music_album",
      reason: `${reason}; album tags: "${tagged.album}" by ${tagged.artist} (${tagged.tagged} tagged)`,
      target: `music/${seg(tagged.artist)}/${seg(tagged.album)}`,
    };
  const artist = seg(listing.parentName || "Unknown Artist");
  return { kind: "music_album", reason, target: `music/${artist}/${seg(listing.name)}` };
}

/** Three or more photos and nothing but sidecars: one shoot. */
function photoReason(entries: readonly ListingEntry[]): string | undefined {
  const files = entries.filter(isFile).filter((e) => !e.name.startsWith("."));
  const photos = files.filter((e) => PHOTO_EXT.test(e.name));
  if (photos.length < 3 || entries.some((e) => e.kind === "dir" && !e.name.startsWith("."))) return undefined;
  if (!files.every((e) => PHOTO_EXT.test(e.name) || SIDECAR_EXT.test(e.name))) return undefined;
  return `photo shoot: ${photos.length} photos in one folder`;
}

/** Whether the listing may be a photo event (the caller then reads the photos' mtimes for its date). */
export function mayBePhotoEvent(listing: FolderListing): boolean {
  return photoReason(listing.entries) !== undefined;
}

/** The day of a shoot (ms, UTC midnight): the earliest date in a photo's name, else the earliest mtime. */
export function shootDay(entries: readonly ListingEntry[], at: number): number | undefined {
  let best: number | undefined;
  for (const e of entries) {
    if (!isFile(e) || !PHOTO_EXT.test(e.name)) continue;
    const d = dateFromFileName(e.name, at) ?? e.mtime;
    if (d !== undefined && (best === undefined || d < best)) best = d;
  }
  return best === undefined ? undefined : best - (best % 86_400_000);
}

function dayParts(ms: number): { yyyy: string; ymd: string } {
  const iso = new Date(ms).toISOString();
  return { yyyy: iso.slice(0, 4), ymd: iso.slice(0, 10) };
}

/**
 * Recognises a folder that must stay whole, from its listing (pure). In order: an app bundle or package by
 * its name, a software project (a VCS folder, then a project manifest), a LaTeX project, a music album
 * (`music/{artist}/{album}`: its tracks' album tags when they agree, else the parent folder names the artist
 * and the folder the album; tracks tagged with several albums are no album), a photo event
 * (`photos/{yyyy}/{yyyy-mm-dd} {folder}`). Undefined: an ordinary folder, walked file by file.
 */
export function recogniseUnit(listing: FolderListing): Recognition | undefined {
  const name = seg(listing.name);
  if (BUNDLE_EXT.test(listing.name)) {
    const ext = listing.name.slice(listing.name.lastIndexOf("."));
    return { kind: "bundle", reason: `a ${ext} bundle`, target: `applications/${name}` };
  }
  const software = softwareReason(listing.entries);
  if (software !== undefined)
    return { kind: "software_project", reason: software, target: `projects/${name}` };
  const latex = latexReason(listing.entries);
  if (latex !== undefined) return { kind: "document_project", reason: latex, target: `documents/${name}` };
  const album = albumReason(listing.entries);
  if (album !== undefined) {
    const found = albumOf(listing, album);
    if (found !== undefined) return found;
  }
  const photos = photoReason(listing.entries);
  if (photos !== undefined) {
    const day = shootDay(listing.entries, listing.at);
    if (day === undefined) return undefined;
    const { yyyy, ymd } = dayParts(day);
    return { kind: "photo_event", reason: photos, target: `photos/${yyyy}/${seg(`${ymd} ${listing.name}`)}` };
  }
  return undefined;
}

/**
 * Makes unit targets distinct: a target another unit already took (compared without case) gets ` (2)`,
 * ` (3)`… on its last segment. `taken` holds the keys handed out so far and is updated.
 */
export function distinctUnitTarget(target: string, taken: Set<string>): string {
  let candidate = target;
  for (let n = 2; taken.has(candidate.normalize("NFC").toLowerCase()); n++) candidate = `${target} (${n})`;
  taken.add(candidate.normalize("NFC").toLowerCase());
  return candidate;
}

/** What a row says about the unit it belongs to. */
export const RowUnit = z
  .object({
    id: z.string().meta({ description: "Stable within the manifest" }),
    kind: z.enum(UNIT_KINDS),
    root: z.string().meta({ description: "The unit's folder where it was analyzed" }),
    reason: z.string().meta({ description: "Why the folder was recognised", example: "has .git" }),
  })
  .meta({ id: "FileorgRowUnit" });
/** What a row says about the unit it belongs to. */
export type RowUnit = z.infer<typeof RowUnit>;

/** The category unit rows are filed under. */
export const UNIT_CATEGORY: Readonly<Record<UnitKind, string>> = {
  software_project: "code",
  document_project: "documents",
  bundle: "other",
  music_album: "audio",
  photo_event: "images",
};

/** The confidence of a unit row: a recognised unit needs no file-by-file review. */
export const UNIT_CONFIDENCE = 0.95;

/** The reason code of every unit row. */
export const UNIT_REASON = "UNIT_KEPT_WHOLE";
