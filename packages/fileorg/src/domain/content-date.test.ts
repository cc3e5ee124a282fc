import { describe, expect, it } from "vitest";
import {
  chooseDate,
  dateFromFileName,
  parseExifDate,
  parseIsoDate,
  parsePdfDate,
  plausibleDate,
} from "./content-date.js";

const NOW = Date.UTC(2026, 0, 1);
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

describe("content dates", () => {
  it("reads EXIF, PDF and W3CDTF dates as the wall clock they were written in", () => {
    expect(parseExifDate("2019:07:14 09:30:05", NOW)).toBe(Date.UTC(2019, 6, 14, 9, 30, 5));
    expect(parsePdfDate("D:20180304101112+02'00'", NOW)).toBe(Date.UTC(2018, 2, 4, 10, 11, 12));
    expect(parsePdfDate("D:2016", NOW)).toBe(day(2016, 1, 1));
    expect(parseIsoDate("2017-11-23T08:00:00Z", NOW)).toBe(Date.UTC(2017, 10, 23, 8));
  });

  it("refuses what is no real date: month 13, February 30, a zeroed EXIF, 1970, the future", () => {
    expect(parseExifDate("2019:13:01 10:00:00", NOW)).toBeUndefined();
    expect(parseExifDate("2023:02:30 10:00:00", NOW)).toBeUndefined();
    expect(parseExifDate("0000:00:00 00:00:00", NOW)).toBeUndefined();
    expect(parseExifDate("1970:01:01 00:00:00", NOW)).toBeUndefined();
    expect(parseExifDate("    :  :     :  :  ", NOW)).toBeUndefined();
    expect(plausibleDate({ y: 2030, mo: 1, d: 1 }, NOW)).toBeUndefined();
    expect(plausibleDate({ y: 2024, mo: 2, d: 29 }, NOW)).toBe(day(2024, 2, 29));
  });

  it.each([
    ["Screenshot 2023-02-11 at 10.00.00.png", day(2023, 2, 11)],
    ["IMG_20230211_101500.jpg", day(2023, 2, 11)],
    ["PXL_20230211_123456789.jpg", day(2023, 2, 11)],
    ["VID_20230211.mp4", day(2023, 2, 11)],
    ["2023-02-11 scan.pdf", day(2023, 2, 11)],
    ["scan_2023_02_11.pdf", day(2023, 2, 11)],
    ["WhatsApp Image 2023-02-11 at 10.00.00.jpeg", day(2023, 2, 11)],
  ])("finds the date in %s", (name, expected) => {
    expect(dateFromFileName(name, NOW)).toBe(expected);
  });

  it.each([
    "invoice 12345678.pdf",
    "order 20231399.pdf",
    "IMG_1234.jpg",
    "report-v2023.pdf",
    "a120230211b.txt",
  ])("finds no date in %s", (name) => {
    expect(dateFromFileName(name, NOW)).toBeUndefined();
  });

  it("takes the first valid source: content hints in order, then the name, then the mtime", () => {
    const mtime = day(2024, 5, 6);
    expect(
      chooseDate(
        {
          hints: [
            { source: "exif", text: "0000:00:00 00:00:00" },
            { source: "exif", text: "2019:07:14 09:30:00" },
          ],
          fileName: "IMG_20200101_000000.jpg",
          mtime,
        },
        NOW,
      ),
    ).toEqual({ date: Date.UTC(2019, 6, 14, 9, 30), source: "exif" });
    expect(
      chooseDate(
        { hints: [{ source: "pdf", text: "D:20191301" }], fileName: "2021-12-24 scan.pdf", mtime },
        NOW,
      ),
    ).toEqual({ date: day(2021, 12, 24), source: "file_name" });
    expect(chooseDate({ hints: [], fileName: "notes.txt", mtime }, NOW)).toEqual({
      date: mtime,
      source: "mtime",
    });
  });
});
