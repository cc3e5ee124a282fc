import { describe, expect, it } from "vitest";
import { rowMetaOf } from "./content-meta.js";
import { parseTemplate, renderTemplate } from "./naming-template.js";
import { checkNamingTemplate } from "./template-check.js";
import { albumByTags, recogniseUnit } from "./units.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("content metadata (pure)", () => {
  it("keeps a real EXIF date as taken, trims tags and drops what is empty or out of range", () => {
    const meta = rowMetaOf(
      {
        camera: { make: " Canon\u0000 ", model: "" },
        audio: { artist: "A".repeat(300), track: -1, year: 1997, genre: "  " },
      },
      [
        { source: "exif", text: "0000:00:00 00:00:00" },
        { source: "exif", text: "2019:07:14 09:30:00" },
      ],
      NOW,
    );
    expect(meta).toEqual({
      camera_make: "Canon",
      taken: Date.parse("2019-07-14T09:30:00Z"),
      artist: "A".repeat(200),
      year: 1997,
    });
    expect(rowMetaOf(undefined, [{ source: "pdf", text: "D:20190101" }], NOW)).toBeNull();
  });

  it("renders the metadata tokens, each with its fallback", () => {
    const parsed = parseTemplate("{camera_make}/{camera_model}/{artist}/{album}/{unit}/{track} {title}{ext}");
    if (!parsed.ok) throw new Error(parsed.message);
    const base = { category: "audio", mtime: 0, fileName: "a.mp3", sha256: null, sourcePath: "/s/d/a.mp3" };
    expect(renderTemplate(parsed.template, base)).toBe(
      "Unknown Camera/Unknown Model/Unknown Artist/Unknown Album/d/00 a.mp3",
    );
    const meta = {
      camera_make: "Canon",
      camera_model: "EOS/80D",
      album_artist: "AA",
      album: "B",
      track: 7,
      title: "T?",
    };
    expect(renderTemplate(parsed.template, { ...base, meta, unitRoot: "/s/Unit" })).toBe(
      "Canon/EOS_80D/AA/B/Unit/07 T_.mp3",
    );
    expect(checkNamingTemplate("music/{artist}/{album}/{track} {title}{ext}")).toEqual([]);
    expect(checkNamingTemplate("music/{artist}/{track}{ext}").map((i) => i.part)).toEqual(["{track}{ext}"]);
  });

  it("files an album by the tags its tracks agree on; a compilation under Various Artists; several albums: none", () => {
    const track = (name: string, tags?: { artist?: string; album?: string; album_artist?: string }) => ({
      name,
      kind: "file" as const,
      tags,
    });
    const listing = (entries: ReturnType<typeof track>[]) => ({
      name: "New Folder",
      parentName: "Downloads",
      entries,
      at: NOW,
    });
    expect(
      recogniseUnit(
        listing([
          track("1.mp3", { artist: "X", album: "Real" }),
          track("2.mp3", { artist: "x", album: "REAL" }),
        ]),
      ),
    ).toMatchObject({ kind: "music_album", target: "music/X/Real" });
    expect(
      albumByTags([
        track("1.mp3", { artist: "X", album: "Mix" }),
        track("2.mp3", { artist: "Y", album: "Mix" }),
      ]),
    ).toEqual({ album: "Mix", artist: "Various Artists", tagged: 2 });
    expect(
      albumByTags([
        track("1.mp3", { artist: "X", album: "Mix", album_artist: "DJ" }),
        track("2.mp3", { artist: "Y", album: "Mix", album_artist: "DJ" }),
      ]),
    ).toMatchObject({ artist: "DJ" });
    expect(
      recogniseUnit(listing([track("1.mp3", { album: "A" }), track("2.mp3", { album: "B" })])),
    ).toBeUndefined();
    expect(recogniseUnit(listing([track("1.mp3"), track("2.mp3")]))).toMatchObject({
      target: "music/Downloads/New Folder",
    });
  });
});
