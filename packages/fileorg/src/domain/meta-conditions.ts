import { compileUserRegex } from "@vetted/store/limits";
import picomatch from "picomatch";
import { z } from "zod";
import type { ReviewRowFacts } from "./review-row.js";

/**
 * The rule conditions over what a file's content says (`meta` and the text excerpt, read at analyze): a
 * photo's camera and taken date, a track's tags, a text file's words. A row whose content does not say
 * (no EXIF, no tags, not a text file) never matches one. Pure; `review-rule.ts` puts them in its union.
 */

/** A date bound: an ISO date (a whole UTC day) or a date-time with an offset. */
const DateBound = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
const Glob = z.string().min(1).max(500);

/** The audio tags an `audio` condition may test with a glob. */
export const AUDIO_TEXT_TAGS = ["artist", "album_artist", "album", "title", "genre"] as const;

/** The conditions over content metadata, members of the engine's `RuleCondition` union. */
export const META_CONDITIONS = [
  z.object({
    field: z.literal("exif"),
    make: Glob.optional().meta({ description: "EXIF Make: a glob or the exact text, any case" }),
    model: Glob.optional().meta({ description: "EXIF Model: a glob or the exact text, any case" }),
  }),
  z.object({
    field: z.literal("taken"),
    from: DateBound.optional(),
    to: DateBound.optional(),
  }),
  z.object({
    field: z.literal("audio"),
    artist: Glob.optional(),
    album_artist: Glob.optional(),
    album: Glob.optional(),
    title: Glob.optional(),
    genre: Glob.optional(),
    year: z
      .object({ min: z.number().int().optional(), max: z.number().int().optional() })
      .strict()
      .optional(),
  }),
  z.object({
    field: z.literal("text"),
    contains: z
      .array(z.string().min(1).max(1000))
      .min(1)
      .optional()
      .meta({ description: "Any of these words or phrases, any case" }),
    regex: z.string().min(1).optional().meta({ description: "A regular expression (RE2) over the excerpt" }),
  }),
] as const;

/** A content-metadata condition. */
export type MetaCondition = z.infer<(typeof META_CONDITIONS)[number]>;

type Test = (row: ReviewRowFacts) => boolean;

/** A glob or the exact text, any case; a row without the value never matches. */
function textTest(pattern: string): (value: string | undefined) => boolean {
  const lower = pattern.toLowerCase();
  const glob = picomatch(pattern, { nocase: true, dot: true, noextglob: true });
  return (value) => value !== undefined && (value.toLowerCase() === lower || glob(value));
}

function allOf(tests: ReadonlyArray<Test>): Test {
  return (row) => tests.every((t) => t(row));
}

function dateTest(
  from: number | undefined,
  to: number | undefined,
  value: (row: ReviewRowFacts) => number | undefined,
): Test {
  return (row) => {
    const v = value(row);
    return v !== undefined && (from === undefined || v >= from) && (to === undefined || v < to);
  };
}

function audioTest(c: Extract<MetaCondition, { field: "audio" }>): Test {
  const tests: Test[] = [];
  for (const tag of AUDIO_TEXT_TAGS) {
    const pattern = c[tag];
    if (pattern === undefined) continue;
    const m = textTest(pattern);
    tests.push((row) => m(row.meta?.[tag]));
  }
  const { year } = c;
  if (year !== undefined)
    tests.push((row) => {
      const y = row.meta?.year;
      return (
        y !== undefined &&
        (year.min === undefined || y >= year.min) &&
        (year.max === undefined || y <= year.max)
      );
    });
  // An `audio` condition with no tag named asks whether the file has tags at all.
  if (tests.length === 0)
    tests.push((row) => row.meta?.artist !== undefined || row.meta?.album !== undefined);
  return allOf(tests);
}

function textContentTest(c: Extract<MetaCondition, { field: "text" }>): Test {
  const tests: Test[] = [];
  if (c.contains !== undefined) {
    const words = c.contains.map((w) => w.toLowerCase());
    tests.push((row) => {
      const text = row.text?.toLowerCase();
      return text !== undefined && words.some((w) => text.includes(w));
    });
  }
  if (c.regex !== undefined) {
    // Linear-time (RE2): no pattern can freeze the server; one RE2 cannot run is refused (REGEX_INVALID).
    const re = compileUserRegex(c.regex);
    tests.push((row) => row.text !== undefined && re.test(row.text));
  }
  if (tests.length === 0) tests.push((row) => row.text !== undefined);
  return allOf(tests);
}

/** Compiles a content-metadata condition (globs and regexes built once). */
export function compileMetaCondition(
  c: MetaCondition,
  dateBoundMs: (bound: string, end: boolean) => number,
): Test {
  switch (c.field) {
    case "exif": {
      const tests: Test[] = [];
      if (c.make !== undefined) {
        const m = textTest(c.make);
        tests.push((row) => m(row.meta?.camera_make));
      }
      if (c.model !== undefined) {
        const m = textTest(c.model);
        tests.push((row) => m(row.meta?.camera_model));
      }
      if (tests.length === 0)
        tests.push((row) => row.meta?.camera_make !== undefined || row.meta?.camera_model !== undefined);
      return allOf(tests);
    }
    case "taken": {
      const from = c.from === undefined ? undefined : dateBoundMs(c.from, false);
      const to = c.to === undefined ? undefined : dateBoundMs(c.to, true);
      return dateTest(from, to, (row) => row.meta?.taken);
    }
    case "audio":
      return audioTest(c);
    case "text":
      return textContentTest(c);
  }
}

/** Whether rules with these conditions need rows' text excerpts (loaded only then). */
export function needsText(conditions: Iterable<{ field: string }>): boolean {
  for (const c of conditions) if (c.field === "text") return true;
  return false;
}

type ConditionList = readonly { field: string }[] | undefined;

/** Whether a rule's conditions (any of its lists) test the text excerpt. */
export function ruleNeedsText(conditions: {
  all?: ConditionList;
  any?: ConditionList;
  none?: ConditionList;
}) {
  return needsText([...(conditions.all ?? []), ...(conditions.any ?? []), ...(conditions.none ?? [])]);
}
