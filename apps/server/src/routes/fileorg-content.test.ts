import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Job, ManifestPage, ManifestRow } from "@vetted/fileorg";
import {
  docxCreated,
  jpegWithCamera,
  jpegWithExif,
  mp3WithId3,
  pdfWithCreationDate,
} from "@vetted/fileorg/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e2b1a40000000049454e44ae426082",
  "hex",
);

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Writes the files with a May 2024 mtime, analyzes them over HTTP and answers the rows by relative path. */
async function analyze(
  files: Record<string, string | Buffer>,
  naming_template?: string,
): Promise<Map<string, { row: ManifestRow; rel: string }>> {
  t = await createTestApp();
  const src = join(t.dir, "Inbox");
  const out = join(t.dir, "Sorted");
  const may2024 = new Date("2024-05-06T12:00:00Z");
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(src, rel)), { recursive: true });
    writeFileSync(join(src, rel), content);
    utimesSync(join(src, rel), may2024, may2024);
  }
  const started = await call<Job>("POST", "/api/jobs/analyze", {
    source_dir: src,
    output_dir: out,
    ...(naming_template === undefined ? {} : { naming_template }),
  });
  expect(started.status).toBe(202);
  let job = started.body;
  for (let i = 0; i < 400 && !["succeeded", "failed", "cancelled"].includes(job.status); i++) {
    await new Promise((r) => setTimeout(r, 25));
    job = (await call<Job>("GET", `/api/jobs/${job.job_id}`)).body;
  }
  expect(job.status).toBe("succeeded");
  const page = await call<ManifestPage>("GET", `/api/jobs/${job.job_id}/manifest?limit=100`);
  expect(page.status).toBe(200);
  return new Map(
    page.body.items.map((row) => [
      row.source_path.slice(src.length + 1),
      { row, rel: row.target_path.slice(out.length + 1) },
    ]),
  );
}

function at(rows: Map<string, { row: ManifestRow; rel: string }>, path: string) {
  const found = rows.get(path);
  if (found === undefined) throw new Error(`no row for ${path}`);
  return found;
}

describe("fileorg over HTTP: dates from the content", () => {
  it("files by EXIF, file name, PDF CreationDate and .docx core property, with date and date_source", async () => {
    const rows = await analyze({
      "photo.jpg": jpegWithExif("2019:07:14 09:30:00"),
      "Screenshot 2023-02-11 at 10.00.00.png": PNG,
      "contract.pdf": pdfWithCreationDate("D:20180304101112+02'00'"),
      "letter.docx": docxCreated("2017-11-23T08:00:00Z"),
      "notes.txt": "plain",
    });
    expect(at(rows, "photo.jpg").rel).toBe("images/2019/photo.jpg");
    expect(at(rows, "photo.jpg").row).toMatchObject({
      date: Date.UTC(2019, 6, 14, 9, 30),
      date_source: "exif",
      mtime: Date.UTC(2024, 4, 6, 12),
    });
    expect(at(rows, "Screenshot 2023-02-11 at 10.00.00.png").rel).toBe(
      "images/2023/Screenshot 2023-02-11 at 10.00.00.png",
    );
    expect(at(rows, "Screenshot 2023-02-11 at 10.00.00.png").row.date_source).toBe("file_name");
    expect(at(rows, "contract.pdf").rel).toBe("documents/2018/contract.pdf");
    expect(at(rows, "contract.pdf").row.date_source).toBe("pdf");
    expect(at(rows, "letter.docx").rel).toBe("documents/2017/letter.docx");
    expect(at(rows, "letter.docx").row.date_source).toBe("office");
    expect(at(rows, "notes.txt").rel).toBe("documents/2024/notes.txt");
    expect(at(rows, "notes.txt").row.date_source).toBe("mtime");
  });
});

describe("fileorg over HTTP: content metadata in the rows", () => {
  it("a manifest row carries `meta` (camera, taken date, tags), null when the content said nothing", async () => {
    const rows = await analyze({
      "photo.jpg": jpegWithCamera("Canon", "Canon EOS 5D", "2024:05:01 08:00:00"),
      "song.mp3": mp3WithId3({ artist: "Björk", album: "Homogenic", title: "Jóga", track: "3" }),
      "notes.txt": "INVOICE no. 42",
    });
    expect(at(rows, "photo.jpg").row.meta).toEqual({
      camera_make: "Canon",
      camera_model: "Canon EOS 5D",
      taken: Date.UTC(2024, 4, 1, 8),
    });
    expect(at(rows, "song.mp3").row.meta).toMatchObject({
      artist: "Björk",
      album: "Homogenic",
      title: "Jóga",
      track: 3,
    });
    // The text excerpt stays out of the rows API.
    const notes = at(rows, "notes.txt").row;
    expect(notes.meta).toBeNull();
    expect(JSON.stringify(notes)).not.toContain("INVOICE");
    // An edited row answers its meta as it was read.
    const photo = at(rows, "photo.jpg").row;
    const edited = await call<ManifestRow>(
      "PATCH",
      `/api/jobs/${photo.job_id}/manifest/rows/${photo.row_id}`,
      {
        category: "documents",
      },
    );
    expect(edited.status).toBe(200);
    expect(edited.body.meta).toEqual(photo.meta);
  });
});

describe("fileorg over HTTP: folder context", () => {
  it("{relpath} keeps the sub-folders", async () => {
    const rows = await analyze(
      { "top.txt": "a", "work/2024/q1/notes.txt": "b" },
      "{category}/{relpath}/{name}{ext}",
    );
    expect(at(rows, "top.txt").rel).toBe("documents/top.txt");
    expect(at(rows, "work/2024/q1/notes.txt").rel).toBe("documents/work/2024/q1/notes.txt");
  });

  it("{parent} is the source folder's name", async () => {
    const rows = await analyze({ "top.txt": "a", "work/notes.txt": "b" }, "{parent}/{name}{ext}");
    expect(at(rows, "top.txt").rel).toBe("Inbox/top.txt");
    expect(at(rows, "work/notes.txt").rel).toBe("work/notes.txt");
  });

  it("previews a review rule whose set_target uses {relpath} and {parent}", async () => {
    const rows = await analyze({ "top.txt": "a", "work/2024/q1/notes.txt": "b" });
    const notes = at(rows, "work/2024/q1/notes.txt").row;
    const preview = await call<{
      matched_count: number;
      matches: Array<{ row_id: string; changes: { target_path?: { from: string; to: string } } }>;
    }>("POST", `/api/jobs/${notes.job_id}/review-rules/preview`, {
      rule: {
        name: "keep folders",
        conditions: { all: [{ field: "extension", in: [".txt"] }] },
        actions: [{ type: "set_target", template: "kept/{relpath}/{parent}-{name}{ext}" }],
      },
    });
    expect(preview.status).toBe(200);
    const change = preview.body.matches.find((m) => m.row_id === notes.row_id)?.changes.target_path;
    expect(change?.to.endsWith("/Sorted/kept/work/2024/q1/q1-notes.txt")).toBe(true);
  });

  it("refuses a template mixing {relpath} into a segment with 400 INVALID_TEMPLATE", async () => {
    t = await createTestApp();
    const res = await call<{ error: { code: string; message: string } }>("POST", "/api/jobs/analyze", {
      source_dir: t.dir,
      naming_template: "x{relpath}/{name}{ext}",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_TEMPLATE");
    expect(res.body.error.message).toContain("{relpath}");
  });
});

describe("fileorg over HTTP: magic bytes", () => {
  it("names a headerless PDF scan.pdf, sends a text x.pdf and an empty file to review", async () => {
    const rows = await analyze({
      scan: pdfWithCreationDate("D:20240101000000Z"),
      "x.pdf": "only text\n",
      "empty.txt": "",
    });
    expect(at(rows, "scan").rel).toBe("documents/2024/scan.pdf");
    expect(at(rows, "x.pdf").row.review_bucket).toBe("needs_review");
    expect(at(rows, "x.pdf").row.reason_codes).toContain("EXTENSION_MISMATCH");
    expect(at(rows, "empty.txt").row.review_bucket).toBe("needs_review");
    expect(at(rows, "empty.txt").row.reason_codes).toContain("EMPTY_FILE");
  });
});
