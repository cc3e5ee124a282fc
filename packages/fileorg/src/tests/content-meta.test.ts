import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ManifestRow } from "../domain/manifest.js";
import type { ReviewRuleInput } from "../domain/review-rule.js";
import { audioTagsOf, TEXT_EXCERPT_BYTES, textExcerptOf } from "../engine/readers/content-meta.js";
import { jpegWithCamera, mp3WithId3 } from "./content-fixtures.js";
import { type ComposedHarness, createComposedHarness, writeTree } from "./harness.js";

let h: ComposedHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local" };
const MAY_2024 = new Date("2024-05-06T12:00:00Z");
/** A text file whose only mention of "needle" lies past the excerpt's bound (16 KiB). */
const LONG_TEXT = `${"hay ".repeat(5000)}needle\n`;

/** A messy folder: photos from two cameras, tagged and untagged tracks, text files, two track folders. */
const MESS: Record<string, string | Buffer> = {
  "canon.jpg": jpegWithCamera("Canon", "Canon EOS 80D", "2019:07:14 09:30:00"),
  "fuji.jpg": jpegWithCamera("FUJIFILM", "X-T3", "2021:03:01 10:00:00"),
  "song.mp3": mp3WithId3({
    artist: "Björk",
    album: "Homogenic",
    title: "Jóga",
    track: "2/10",
    genre: "Electronic",
  }),
  "noise.mp3": mp3WithId3({}),
  "invoice.txt": "INVOICE no. 42\nTotal due: 10 EUR\n",
  "diary.md": "# Dear   diary\nnothing happened\n",
  "long.txt": LONG_TEXT,
  "data.csv": "a,b\n1,2\n",
  // A misleading folder name: the tags say which album it is.
  "New Folder (3)/01.mp3": mp3WithId3({ artist: "The Band", album: "Real Album", title: "One", track: "1" }),
  "New Folder (3)/02.mp3": mp3WithId3({ artist: "The Band", album: "Real Album", title: "Two", track: "2" }),
  "New Folder (3)/cover.jpg": jpegWithCamera("Apple", "iPhone"),
  // Tracks of two albums in one folder: no album, however it looks.
  "Dump/01 x.mp3": mp3WithId3({ artist: "A", album: "First", title: "X" }),
  "Dump/02 y.mp3": mp3WithId3({ artist: "B", album: "Second", title: "Y" }),
  // Untagged tracks: the folder pattern decides, as before.
  "Some Artist/Plain Album/01 a.mp3": mp3WithId3({}),
  "Some Artist/Plain Album/02 b.mp3": mp3WithId3({}),
};

/** The engines composed as the server composes them, and the mess analyzed with `template`. */
async function analyzed(template?: string, savedRules: readonly ReviewRuleInput[] = []) {
  h = await createComposedHarness();
  const { fileorg, review, preferences } = h;
  const src = join(h.dir, "mess");
  const out = join(h.dir, "out");
  writeTree(src, MESS, MAY_2024);
  for (const rule of savedRules) await preferences.save("review-rules", rule);
  const job = await fileorg.analyze(
    { source_dir: src, output_dir: out, ...(template === undefined ? {} : { naming_template: template }) },
    LOCAL,
  );
  expect((await fileorg.waitForJob(job.job_id)).status).toBe("succeeded");
  const rows = async () =>
    new Map(
      (await fileorg.listRows(job.job_id, { limit: 100 })).items.map((r): [string, ManifestRow] => [
        r.source_path.slice(src.length + 1),
        r,
      ]),
    );
  const rel = (row: ManifestRow | undefined) => row?.target_path.slice(out.length + 1);
  return { fileorg, review, jobId: job.job_id, rows, rel };
}

const RULES = `version: 1
rules:
  - name: Canon photos by camera
    filters: { exif: { make: canon, model: "*eos*" } }
    actions: { target: "photos/{camera_make}/{camera_model}/{name}{ext}" }
  - name: Taken since 2021
    filters: { taken: { from: 2021-01-01 } }
    actions: { target: "recent/{camera_model}/{name}{ext}" }
  - name: Electronic tracks
    filters: { audio: { artist: "bj*", genre: electronic } }
    actions: { target: "music/{artist}/{album}/{track} {title}{ext}" }
  - name: Untagged tracks
    filters: { extension: mp3, unit: false }
    exclude: { audio: {} }
    actions: { target: "music/{artist}/{album}/{track} {title}{ext}" }
  - name: Invoices by their text
    filters: { text: { contains: [receipt, invoice] } }
    actions: { category: documents, target: "invoices/{name}{ext}" }
  - name: Diaries by a pattern
    filters: { text: { regex: "(?i)dear\\\\s+diary" } }
    actions: { skip: true }
  - name: Needles past the excerpt
    filters: { text: { contains: needle } }
    actions: { skip: true }
`;

describe("content metadata at analyze, in rules and in templates", () => {
  it("a rules file selects rows by camera, taken date, tags and text, and renders the new tokens", async () => {
    const { review, jobId, rows, rel } = await analyzed();
    const sim = await review.simulateRulesFile(jobId, RULES);
    const counts = Object.fromEntries(sim.rules.map((r) => [r.name, r.matched]));
    expect(counts).toEqual({
      "Canon photos by camera": 1,
      "Taken since 2021": 1,
      "Electronic tracks": 1,
      "Untagged tracks": 1,
      "Invoices by their text": 1,
      "Diaries by a pattern": 1,
      // The text filter reads the bounded excerpt only.
      "Needles past the excerpt": 0,
    });
    await review.runRulesFile(jobId, RULES, LOCAL);
    const after = await rows();
    expect(rel(after.get("canon.jpg"))).toBe("photos/Canon/Canon EOS 80D/canon.jpg");
    expect(rel(after.get("fuji.jpg"))).toBe("recent/X-T3/fuji.jpg");
    expect(rel(after.get("song.mp3"))).toBe("music/Björk/Homogenic/02 Jóga.mp3");
    expect(rel(after.get("noise.mp3"))).toBe("music/Unknown Artist/Unknown Album/00 noise.mp3");
    expect(after.get("invoice.txt")?.category).toBe("documents");
    expect(rel(after.get("invoice.txt"))).toBe("invoices/invoice.txt");
    expect(after.get("diary.md")?.action).toBe("skip");
    expect(after.get("long.txt")?.action).toBe("move");
    expect(after.get("data.csv")?.action).toBe("move");
  });

  it("the public rows carry what analyze read as `meta` (camera, taken, tags), null when nothing, never the text", async () => {
    const { fileorg, jobId, rows } = await analyzed();
    const r = await rows();
    expect(r.get("canon.jpg")?.meta).toEqual({
      camera_make: "Canon",
      camera_model: "Canon EOS 80D",
      taken: Date.UTC(2019, 6, 14, 9, 30),
    });
    expect(r.get("song.mp3")?.meta).toEqual({
      artist: "Björk",
      album: "Homogenic",
      title: "Jóga",
      track: 2,
      genre: "Electronic",
    });
    // A text file's excerpt is read for rules, never shown in the row.
    expect(r.get("invoice.txt")?.meta).toBeNull();
    expect(JSON.stringify(r.get("invoice.txt"))).not.toContain("INVOICE");
    expect(r.get("noise.mp3")?.meta).toBeNull();
    const song = r.get("song.mp3");
    expect((await fileorg.getRow(jobId, song?.row_id ?? "")).meta).toEqual(song?.meta);
  });

  it("renders the job's naming template with tags and camera, each with its fallback", async () => {
    const { rows, rel } = await analyzed("{category}/{camera_make}/{artist}/{track} {title}{ext}");
    const r = await rows();
    expect(rel(r.get("fuji.jpg"))).toBe("images/FUJIFILM/Unknown Artist/00 fuji.jpg");
    expect(rel(r.get("song.mp3"))).toBe("audio/Unknown Camera/Björk/02 Jóga.mp3");
    expect(rel(r.get("invoice.txt"))).toBe("documents/Unknown Camera/Unknown Artist/00 invoice.txt");
  });

  it("saved rules at analyze see the tags, the camera and the text as each row is built", async () => {
    const { rows, rel } = await analyzed(undefined, [
      {
        name: "Bills by text",
        conditions: { all: [{ field: "text", contains: ["total due"] }] },
        actions: [{ type: "set_target", template: "bills/{name}{ext}" }],
      },
      {
        name: "Tracks by tags",
        conditions: { all: [{ field: "audio", album: "homo*" }] },
        actions: [{ type: "set_target", template: "albums/{album}/{track} {title}{ext}" }],
      },
      {
        name: "Fuji by camera",
        conditions: { all: [{ field: "exif", make: "fujifilm" }] },
        actions: [{ type: "set_target", template: "cams/{camera_model}/{name}{ext}" }],
      },
    ]);
    const r = await rows();
    expect(rel(r.get("invoice.txt"))).toBe("bills/invoice.txt");
    expect(rel(r.get("song.mp3"))).toBe("albums/Homogenic/02 Jóga.mp3");
    expect(rel(r.get("fuji.jpg"))).toBe("cams/X-T3/fuji.jpg");
    expect(rel(r.get("canon.jpg"))).toBe("images/2019/canon.jpg");
  });

  it("groups an album by its tags whatever its folder is called, and no album of several", async () => {
    const { rows, rel } = await analyzed();
    const r = await rows();
    const track = r.get("New Folder (3)/01.mp3");
    expect(track?.unit?.kind).toBe("music_album");
    expect(track?.unit?.reason).toContain('album tags: "Real Album" by The Band');
    expect(rel(track)).toBe("music/The Band/Real Album/01.mp3");
    expect(rel(r.get("New Folder (3)/cover.jpg"))).toBe("music/The Band/Real Album/cover.jpg");
    expect(r.get("Dump/01 x.mp3")?.unit).toBeNull();
    expect(r.get("Dump/02 y.mp3")?.unit).toBeNull();
    // Untagged: the parent folder names the artist, the folder the album.
    expect(rel(r.get("Some Artist/Plain Album/01 a.mp3"))).toBe("music/Some Artist/Plain Album/01 a.mp3");
  });

  it("a rule's {unit} names the unit the row is in, else the file's folder", async () => {
    const { review, jobId, rows, rel } = await analyzed();
    const rules = `version: 1
rules:
  - name: Everything by unit
    filters: { extension: [mp3, csv] }
    actions: { target: "by-unit/{unit}/{name}{ext}" }
`;
    const sim = await review.simulateRulesFile(jobId, rules);
    expect(sim.rules[0]?.matched).toBeGreaterThan(0);
    await review.runRulesFile(jobId, rules, LOCAL);
    const r = await rows();
    expect(rel(r.get("Dump/01 x.mp3"))).toBe("by-unit/Dump/01 x.mp3");
    expect(rel(r.get("data.csv"))).toBe("by-unit/mess/data.csv");
    expect(rel(r.get("New Folder (3)/01.mp3"))).toBe("by-unit/New Folder (3)/01.mp3");
  });

  it("reads no tags, and fails no row, when music-metadata is not installed", async () => {
    const track = mp3WithId3({ artist: "A", album: "B" });
    expect(await audioTagsOf(track)).toMatchObject({ artist: "A", album: "B" });
    const missing = (name: string) => import(`${name}-not-installed`);
    expect(await audioTagsOf(track, missing)).toBeUndefined();
    expect(await audioTagsOf(Buffer.from("ID3 not really"))).toBeUndefined();
  });

  it("cuts a text excerpt at its bound without splitting a character, and drops a BOM", () => {
    const text = `${"a".repeat(TEXT_EXCERPT_BYTES - 1)}é and more`;
    const excerpt = textExcerptOf(Buffer.from(`\ufeff${text}`, "utf8").subarray(3));
    expect(excerpt).toBe("a".repeat(TEXT_EXCERPT_BYTES - 1));
    expect(textExcerptOf(Buffer.from("\ufeffhello", "utf8"))).toBe("hello");
  });
});
