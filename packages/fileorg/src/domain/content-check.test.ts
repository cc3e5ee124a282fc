import { describe, expect, it } from "vitest";
import { checkContent, renderedFileName } from "./content-check.js";

const pdf = { mime: "application/pdf", ext: "pdf" };

describe("checkContent", () => {
  it("appends the extension the magic bytes name to a name without one", () => {
    expect(checkContent({ ext: "", size: 10, sniffed: pdf, readable: true })).toEqual({
      appendExt: ".pdf",
      reasonCodes: ["EXTENSION_ADDED"],
    });
    expect(checkContent({ ext: "", size: 10, sniffed: undefined, readable: true }).appendExt).toBeUndefined();
  });

  it("flags a name its content contradicts: no magic where the format has one, or another kind", () => {
    expect(checkContent({ ext: ".pdf", size: 10, sniffed: undefined, readable: true }).reasonCodes).toEqual([
      "EXTENSION_MISMATCH",
    ]);
    expect(checkContent({ ext: ".jpg", size: 10, sniffed: pdf, readable: true }).reasonCodes).toEqual([
      "EXTENSION_MISMATCH",
    ]);
  });

  it("accepts agreeing names, spellings of one format and text formats without magic", () => {
    expect(checkContent({ ext: ".PDF", size: 10, sniffed: pdf, readable: true }).reasonCodes).toEqual([]);
    const jpeg = { mime: "image/jpeg", ext: "jpg" };
    expect(checkContent({ ext: ".jpeg", size: 10, sniffed: jpeg, readable: true }).reasonCodes).toEqual([]);
    expect(checkContent({ ext: ".txt", size: 10, sniffed: undefined, readable: true }).reasonCodes).toEqual(
      [],
    );
    expect(checkContent({ ext: ".bin", size: 10, sniffed: pdf, readable: true }).reasonCodes).toEqual([]);
  });

  it("flags an empty file, and says nothing of a file it could not read", () => {
    expect(checkContent({ ext: ".pdf", size: 0, sniffed: undefined, readable: true }).reasonCodes).toEqual([
      "EMPTY_FILE",
    ]);
    expect(checkContent({ ext: ".pdf", size: 9, sniffed: undefined, readable: false }).reasonCodes).toEqual(
      [],
    );
  });

  it("keeps an appended extension when a row's target is rendered again", () => {
    expect(renderedFileName("/in/scan", "/out/documents/scan.pdf", ["EXTENSION_ADDED"])).toBe("scan.pdf");
    expect(renderedFileName("/in/a.txt", "/out/x/a (2).txt", [])).toBe("a.txt");
  });
});
