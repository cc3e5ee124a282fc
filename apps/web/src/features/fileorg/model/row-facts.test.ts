import { describe, expect, it } from "vitest";
import { contentDate, dateSourceLabel, metaLabel, sourceFolder, unitLabel } from "./row-facts.js";

describe("row facts", () => {
  it("names the source folder relative to the analyzed folder", () => {
    expect(sourceFolder("/data/messy/a/b/report.txt", "/data/messy")).toBe("a/b");
    expect(sourceFolder("/data/messy/report.txt", "/data/messy/")).toBe(".");
    expect(sourceFolder("/elsewhere/x.txt", "/data/messy")).toBe("/elsewhere");
    expect(sourceFolder("/data/messy-2/x.txt", "/data/messy")).toBe("/data/messy-2");
    expect(sourceFolder("/x.txt", undefined)).toBe("/");
  });
  it("prints the content date in UTC and where it was read", () => {
    expect(contentDate(Date.UTC(2024, 2, 5, 23, 30))).toBe("2024-03-05");
    expect(contentDate(Number.NaN)).toBe("?");
    expect(dateSourceLabel("exif")).toBe("EXIF");
    expect(dateSourceLabel("file_name")).toBe("file name");
  });
  it("names the unit a row moves with", () => {
    expect(unitLabel(null)).toBeUndefined();
    expect(unitLabel({ kind: "music_album", root: "/m/Abbey Road" })).toBe("album Abbey Road");
    expect(unitLabel({ kind: "new_kind", root: "/" })).toBe("new kind /");
  });
  it("says what the content told in one short line: camera and taken date, or a track's tags", () => {
    expect(metaLabel(null)).toBeUndefined();
    expect(metaLabel({})).toBeUndefined();
    expect(
      metaLabel({ camera_make: "Canon", camera_model: "Canon EOS 5D", taken: Date.UTC(2024, 4, 1, 8) }),
    ).toBe("Canon EOS 5D · taken 2024-05-01");
    expect(metaLabel({ camera_make: "FUJIFILM", camera_model: "X-T3" })).toBe("FUJIFILM X-T3");
    expect(metaLabel({ artist: "Björk", album: "Homogenic", title: "Jóga", track: 3 })).toBe(
      "Björk — Homogenic, track 3",
    );
    expect(metaLabel({ album_artist: "Various", album: "Hits" })).toBe("Various — Hits");
    expect(metaLabel({ title: "Untitled", track: 1 })).toBe("Untitled, track 1");
    expect(metaLabel({ track: 7 })).toBe("track 7");
  });
});
