import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ManifestRow } from "../domain/manifest.js";
import { docxCreated, JPEG_NO_EXIF, jpegWithExif, pdfWithCreationDate } from "./content-fixtures.js";
import { createHarness, type Harness, PDF_1PAGE, PNG_1x1, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local" };
const MAY_2024 = new Date("2024-05-06T12:00:00Z");

/** Analyzes `files` (written with a 2024 mtime) and answers the rows by path relative to the source. */
async function analyze(
  files: Record<string, string | Buffer>,
  naming_template?: string,
): Promise<{ rows: Map<string, ManifestRow>; out: string; src: string }> {
  h = await createHarness();
  const src = join(h.dir, "src");
  const out = join(h.dir, "out");
  writeTree(src, files, MAY_2024);
  const job = await h.engine.analyze(
    { source_dir: src, output_dir: out, ...(naming_template === undefined ? {} : { naming_template }) },
    LOCAL,
  );
  const done = await h.engine.waitForJob(job.job_id);
  expect(done.status).toBe("succeeded");
  const page = await h.engine.listRows(job.job_id, { limit: 500 });
  return { rows: new Map(page.items.map((r) => [r.source_path.slice(src.length + 1), r])), out, src };
}

function target(result: { rows: Map<string, ManifestRow>; out: string }, rel: string) {
  const row = result.rows.get(rel);
  if (row === undefined) throw new Error(`no row for ${rel}`);
  return { row, rel: row.target_path.slice(result.out.length + 1) };
}

describe("dates from the content", () => {
  it("files a photo by its EXIF DateTimeOriginal (2019) rather than its mtime (2024)", async () => {
    const r = await analyze({ "photo.jpg": jpegWithExif("2019:07:14 09:30:00") });
    const { row, rel } = target(r, "photo.jpg");
    expect(rel).toBe("images/2019/photo.jpg");
    expect(row.date_source).toBe("exif");
    expect(new Date(row.date).toISOString()).toBe("2019-07-14T09:30:00.000Z");
    expect(row.mtime).toBe(MAY_2024.getTime());
  });

  it("files a screenshot, an IMG_ and a dated scan by the date in their names", async () => {
    const r = await analyze({
      "Screenshot 2023-02-11 at 10.00.00.png": PNG_1x1,
      "IMG_20220308_101500.jpg": JPEG_NO_EXIF,
      "2021-12-24 scan.pdf": PDF_1PAGE,
      "PXL_20200101_123456789.jpg": JPEG_NO_EXIF,
    });
    expect(target(r, "Screenshot 2023-02-11 at 10.00.00.png").rel).toBe(
      "images/2023/Screenshot 2023-02-11 at 10.00.00.png",
    );
    expect(target(r, "Screenshot 2023-02-11 at 10.00.00.png").row.date_source).toBe("file_name");
    expect(target(r, "IMG_20220308_101500.jpg").rel).toBe("images/2022/IMG_20220308_101500.jpg");
    expect(target(r, "2021-12-24 scan.pdf").rel).toBe("documents/2021/2021-12-24 scan.pdf");
    expect(target(r, "PXL_20200101_123456789.jpg").rel).toBe("images/2020/PXL_20200101_123456789.jpg");
  });

  it("uses a PDF's CreationDate and a .docx core property, month and day included", async () => {
    const r = await analyze(
      {
        "contract.pdf": pdfWithCreationDate("D:20180304101112+02'00'"),
        "letter.docx": docxCreated("2017-11-23T08:00:00Z"),
      },
      "{category}/{yyyy}/{mm}/{dd}/{name}{ext}",
    );
    expect(target(r, "contract.pdf").rel).toBe("documents/2018/03/04/contract.pdf");
    expect(target(r, "contract.pdf").row.date_source).toBe("pdf");
    expect(target(r, "letter.docx").rel).toBe("documents/2017/11/23/letter.docx");
    expect(target(r, "letter.docx").row.date_source).toBe("office");
  });

  it("finds a PDF's CreationDate at the end of a file past its first megabyte", async () => {
    const r = await analyze({ "big.pdf": pdfWithCreationDate("D:20160101", 1_500_000) });
    expect(target(r, "big.pdf").rel).toBe("documents/2016/big.pdf");
  });

  it("never inflates an Office part past 1 MiB (a zip bomb): the mtime is used instead", async () => {
    const r = await analyze({
      "bomb.docx": docxCreated("2017-11-23T08:00:00Z", 2 * 1024 * 1024),
      "fine.docx": docxCreated("2017-11-23T08:00:00Z", 512 * 1024),
    });
    expect(target(r, "bomb.docx").row.date_source).toBe("mtime");
    expect(target(r, "bomb.docx").rel).toBe("documents/2024/bomb.docx");
    expect(target(r, "fine.docx").row.date_source).toBe("office");
  });

  it("passes over invalid dates to the next source: a zeroed EXIF, month 13, 1970", async () => {
    const r = await analyze({
      "zeroed.jpg": jpegWithExif("0000:00:00 00:00:00"),
      "IMG_20191301_000000.jpg": jpegWithExif("1970:01:01 00:00:00"),
      "epoch 2020-05-17.jpg": jpegWithExif("2019:13:01 10:00:00"),
    });
    expect(target(r, "zeroed.jpg").rel).toBe("images/2024/zeroed.jpg");
    expect(target(r, "zeroed.jpg").row.date_source).toBe("mtime");
    expect(target(r, "IMG_20191301_000000.jpg").rel).toBe("images/2024/IMG_20191301_000000.jpg");
    expect(target(r, "epoch 2020-05-17.jpg").rel).toBe("images/2020/epoch 2020-05-17.jpg");
    expect(target(r, "epoch 2020-05-17.jpg").row.date_source).toBe("file_name");
  });
});

describe("folder context", () => {
  it("{relpath} keeps the sub-folders under the category", async () => {
    const r = await analyze(
      { "top.txt": "a", "work/2024/q1/notes.txt": "b", "work/plan.txt": "c" },
      "{category}/{relpath}/{name}{ext}",
    );
    expect(target(r, "top.txt").rel).toBe("documents/top.txt");
    expect(target(r, "work/2024/q1/notes.txt").rel).toBe("documents/work/2024/q1/notes.txt");
    expect(target(r, "work/plan.txt").rel).toBe("documents/work/plan.txt");
  });

  it("{parent} is the name of the file's folder (the source folder's own name at its top)", async () => {
    const r = await analyze({ "top.txt": "a", "work/2024/notes.txt": "b" }, "{parent}/{name}{ext}");
    expect(target(r, "top.txt").rel).toBe("src/top.txt");
    expect(target(r, "work/2024/notes.txt").rel).toBe("2024/notes.txt");
  });

  it("the folders-kept pack's template keeps sub-folders", async () => {
    const { findStrategyPack } = await import("../domain/strategy-packs.js");
    const pack = findStrategyPack("folders-kept");
    const r = await analyze({ "a/b/deep.txt": "x" }, pack?.naming_template);
    expect(target(r, "a/b/deep.txt").rel).toBe("documents/a/b/deep.txt");
  });
});

describe("magic bytes", () => {
  it("appends the extension the bytes name to a name without one", async () => {
    const r = await analyze({ scan: PDF_1PAGE });
    const { row, rel } = target(r, "scan");
    expect(rel).toBe("documents/2024/scan.pdf");
    expect(row.reason_codes).toContain("EXTENSION_ADDED");
  });

  it("sends a text file named .pdf to review with EXTENSION_MISMATCH, never auto_safe", async () => {
    const r = await analyze({ "x.pdf": "just some text, not a PDF\n", "ok.pdf": PDF_1PAGE });
    const { row } = target(r, "x.pdf");
    expect(row.review_bucket).toBe("needs_review");
    expect(row.reason_codes).toContain("EXTENSION_MISMATCH");
    expect(target(r, "ok.pdf").row.review_bucket).toBe("auto_safe");
  });

  it("sends a zero-byte file to review with EMPTY_FILE", async () => {
    const r = await analyze({ "empty.txt": "" });
    const { row } = target(r, "empty.txt");
    expect(row.review_bucket).toBe("needs_review");
    expect(row.reason_codes).toContain("EMPTY_FILE");
  });
});
