import { describe, expect, it } from "vitest";
import { contentDate, dateSourceLabel, sourceFolder, unitLabel } from "./row-facts.js";

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
});
