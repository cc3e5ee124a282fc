import { z } from "zod";
import { type DateHint, parseExifDate } from "./content-date.js";

/**
 * What a file's content says about it beyond its dates: a photo's camera (EXIF `Make`, `Model`) and when it
 * was taken (`DateTimeOriginal`), a track's tags (artist, album, title, track number, year, genre). Read by
 * the file threads at analyze, checked and trimmed here, stored per row; rules filter on it and naming
 * templates use it. Pure: no I/O.
 */

/** The longest tag value kept (longer ones are cut). */
export const MAX_META_TEXT = 200;

/** A track's tags as a reader found them (every field optional: an unreadable tag is just absent). */
export interface AudioTags {
  artist?: string | undefined;
  album_artist?: string | undefined;
  album?: string | undefined;
  title?: string | undefined;
  track?: number | undefined;
  year?: number | undefined;
  genre?: string | undefined;
}

/** What a file thread read from a file's content besides its dates. */
export interface RawMeta {
  camera?: { make?: string | undefined; model?: string | undefined } | undefined;
  audio?: AudioTags | undefined;
}

/** The content metadata stored with a row (only the fields the content had). */
export const RowMeta = z
  .object({
    camera_make: z.string().optional().meta({ description: "EXIF Make", example: "Canon" }),
    camera_model: z.string().optional().meta({ description: "EXIF Model", example: "EOS 80D" }),
    taken: z.number().int().optional().meta({ description: "EXIF DateTimeOriginal, ms (wall clock as UTC)" }),
    artist: z.string().optional(),
    album_artist: z.string().optional(),
    album: z.string().optional(),
    title: z.string().optional(),
    track: z.number().int().nonnegative().optional(),
    year: z.number().int().optional(),
    genre: z.string().optional(),
  })
  .meta({ id: "FileorgRowMeta" });
/** The content metadata stored with a row. */
export type RowMeta = z.infer<typeof RowMeta>;

/** A tag text trimmed, without control characters, cut to {@link MAX_META_TEXT}; `undefined` when empty. */
export function cleanTagText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is dropped.
  const text = value.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (text === "") return undefined;
  return text.length > MAX_META_TEXT ? text.slice(0, MAX_META_TEXT).trimEnd() : text;
}

function cleanNumber(value: unknown, max: number): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max
    ? value
    : undefined;
}

/** The stored metadata of a file: its camera, when it was taken (a real EXIF date) and its tags; `null`: none. */
export function rowMetaOf(raw: RawMeta | undefined, hints: readonly DateHint[], now: number): RowMeta | null {
  const meta: RowMeta = {};
  const put = <K extends keyof RowMeta>(key: K, value: RowMeta[K] | undefined) => {
    if (value !== undefined) meta[key] = value;
  };
  put("camera_make", cleanTagText(raw?.camera?.make));
  put("camera_model", cleanTagText(raw?.camera?.model));
  for (const hint of hints) {
    if (hint.source !== "exif") continue;
    const taken = parseExifDate(hint.text, now);
    if (taken !== undefined) {
      meta.taken = taken;
      break;
    }
  }
  const a = raw?.audio;
  put("artist", cleanTagText(a?.artist));
  put("album_artist", cleanTagText(a?.album_artist));
  put("album", cleanTagText(a?.album));
  put("title", cleanTagText(a?.title));
  put("track", cleanNumber(a?.track, 9999));
  put("year", cleanNumber(a?.year, 9999));
  put("genre", cleanTagText(a?.genre));
  return Object.keys(meta).length === 0 ? null : meta;
}

/** The artist an album is filed under: its album artist, else the track's artist. */
export function albumArtistOf(meta: Pick<RowMeta, "artist" | "album_artist"> | null | undefined) {
  return meta?.album_artist ?? meta?.artist;
}
