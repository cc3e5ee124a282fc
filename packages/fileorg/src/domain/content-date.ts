/**
 * Where a row's date comes from, best first: the photo's EXIF `DateTimeOriginal`, a PDF's `CreationDate`,
 * an Office document's core property `dcterms:created`, a date in the file name, then the mtime.
 */
export const DATE_SOURCES = ["exif", "pdf", "office", "file_name", "mtime"] as const;
/** Where a row's date comes from. */
export type DateSource = (typeof DATE_SOURCES)[number];

/** A date text a reader thread found in a file's content, with where it found it. */
export interface DateHint {
  source: Exclude<DateSource, "file_name" | "mtime">;
  text: string;
}

/** A chosen date: ms since the epoch (a wall-clock date is kept as written, read as UTC) and its source. */
export interface ContentDate {
  date: number;
  source: DateSource;
}

/** The earliest year taken as real: 1970 is what a zeroed clock or EXIF block gives. */
const MIN_YEAR = 1971;
/** A date up to a day past `now` is accepted (time zones); anything later is a wrong clock. */
const FUTURE_SLACK_MS = 86_400_000;

/**
 * The date of the given wall-clock fields as ms since the epoch (UTC), or `undefined` when the fields are
 * no calendar date (month 13, February 30, hour 25…), before 1971 or after `now` (plus a day).
 */
export function plausibleDate(
  fields: { y: number; mo: number; d: number; h?: number; mi?: number; s?: number },
  now: number,
): number | undefined {
  const { y, mo, d, h = 0, mi = 0, s = 0 } = fields;
  if (![y, mo, d, h, mi, s].every(Number.isInteger)) return undefined;
  if (y < MIN_YEAR || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  const ms = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59));
  const back = new Date(ms);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms > now + FUTURE_SLACK_MS ? undefined : ms;
}

const num = (s: string | undefined) => (s === undefined || s === "" ? 0 : Number(s));

/** `2019:05:06 12:34:56` (EXIF, local wall clock) → its date, or `undefined`. */
export function parseExifDate(text: string, now: number): number | undefined {
  const m = /^\s*(\d{4})[:-](\d{2})[:-](\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text);
  if (m === null) return undefined;
  return plausibleDate(
    { y: num(m[1]), mo: num(m[2]), d: num(m[3]), h: num(m[4]), mi: num(m[5]), s: num(m[6]) },
    now,
  );
}

/** `D:20190506123456+02'00'` (a PDF date, its wall clock as written) → its date, or `undefined`. */
export function parsePdfDate(text: string, now: number): number | undefined {
  const m = /^\s*(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(text);
  if (m === null) return undefined;
  return plausibleDate(
    {
      y: num(m[1]),
      mo: m[2] === undefined ? 1 : num(m[2]),
      d: m[3] === undefined ? 1 : num(m[3]),
      h: num(m[4]),
      mi: num(m[5]),
      s: num(m[6]),
    },
    now,
  );
}

/** `2019-05-06T12:34:56Z` (W3CDTF, as Office and XMP write it; the wall clock as written) → its date. */
export function parseIsoDate(text: string, now: number): number | undefined {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text);
  if (m === null) return undefined;
  return plausibleDate(
    { y: num(m[1]), mo: num(m[2]), d: num(m[3]), h: num(m[4]), mi: num(m[5]), s: num(m[6]) },
    now,
  );
}

/**
 * Dates people and devices put in file names, each found where digits do not run on around it:
 * `2023-02-11` / `2023_02_11` / `2023.02.11` (`Screenshot 2023-02-11 at 10.00.00`, `2023-02-11 scan`),
 * `20230211` followed by `_`/`-`/a time (`IMG_20230211_101500`, `PXL_20230211_…`, `VID_20230211…`).
 */
const NAME_DATE_PATTERNS: readonly RegExp[] = [
  /(?<!\d)((?:19|20)\d{2})[-_.]([01]\d)[-_.]([0-3]\d)(?!\d)/,
  /(?<!\d)((?:19|20)\d{2})([01]\d)([0-3]\d)(?=[_\-T ]?\d{4,6}(?!\d)|[_\-. ]|$)/,
];

/** The date in a file name (its wall-clock day, read as UTC), or `undefined`. */
export function dateFromFileName(fileName: string, now: number): number | undefined {
  for (const pattern of NAME_DATE_PATTERNS) {
    const m = pattern.exec(fileName);
    if (m === null) continue;
    const found = plausibleDate({ y: num(m[1]), mo: num(m[2]), d: num(m[3]) }, now);
    if (found !== undefined) return found;
  }
  return undefined;
}

const PARSERS: Record<DateHint["source"], (text: string, now: number) => number | undefined> = {
  exif: parseExifDate,
  pdf: (text, now) => parsePdfDate(text, now) ?? parseIsoDate(text, now),
  office: parseIsoDate,
};

/**
 * The best date of a file: the first content hint that is a real date, else a date in its name, else its
 * mtime. Invalid dates (month 13, a zeroed EXIF's 1970 or 0000, a date in the future) are passed over.
 */
export function chooseDate(
  input: { hints: readonly DateHint[]; fileName: string; mtime: number },
  now: number,
): ContentDate {
  for (const hint of input.hints) {
    const date = PARSERS[hint.source](hint.text, now);
    if (date !== undefined) return { date, source: hint.source };
  }
  const named = /\d{8}|\d{4}[-_.]\d{2}/.test(input.fileName)
    ? dateFromFileName(input.fileName, now)
    : undefined;
  if (named !== undefined) return { date: named, source: "file_name" };
  return { date: input.mtime, source: "mtime" };
}
