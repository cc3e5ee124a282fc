import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import type { Job, ManifestPage, ManifestRow } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A tiny real JPEG: SOI, an APP1 Exif block (IFD0 → Exif IFD → DateTimeOriginal), EOI. */
function jpegWithExif(dateTimeOriginal: string): Buffer {
  const date = Buffer.from(`${dateTimeOriginal}\0`, "latin1");
  const tiff = Buffer.alloc(44 + date.length);
  tiff.write("II", 0, "latin1");
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(1, 8);
  tiff.writeUInt16LE(0x8769, 10);
  tiff.writeUInt16LE(4, 12);
  tiff.writeUInt32LE(1, 14);
  tiff.writeUInt32LE(26, 18);
  tiff.writeUInt16LE(1, 26);
  tiff.writeUInt16LE(0x9003, 28);
  tiff.writeUInt16LE(2, 30);
  tiff.writeUInt32LE(date.length, 32);
  tiff.writeUInt32LE(44, 36);
  date.copy(tiff, 44);
  const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const app1 = Buffer.from([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, payload, Buffer.from([0xff, 0xd9])]);
}

/** A one-page PDF whose Info dictionary has a CreationDate. */
function pdf(creationDate?: string): Buffer {
  const info = creationDate === undefined ? "" : `4 0 obj << /CreationDate (${creationDate}) >> endobj\n`;
  return Buffer.from(
    "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
      `3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj\n${info}` +
      `trailer << /Root 1 0 R${creationDate === undefined ? "" : " /Info 4 0 R"} >>\n%%EOF\n`,
    "latin1",
  );
}

/** A minimal .docx (a zip of deflated parts) whose core properties say when it was created. */
function docx(created: string): Buffer {
  const parts: Array<[string, string]> = [
    [
      "[Content_Types].xml",
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ],
    ["word/document.xml", '<?xml version="1.0"?><w:document/>'],
    [
      "docProps/core.xml",
      `<?xml version="1.0"?><cp:coreProperties xmlns:dcterms="http://purl.org/dc/terms/"><dcterms:created>${created}</dcterms:created></cp:coreProperties>`,
    ],
  ];
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of parts) {
    const data = Buffer.from(text);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

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
      "contract.pdf": pdf("D:20180304101112+02'00'"),
      "letter.docx": docx("2017-11-23T08:00:00Z"),
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
    const rows = await analyze({ scan: pdf(), "x.pdf": "only text\n", "empty.txt": "" });
    expect(at(rows, "scan").rel).toBe("documents/2024/scan.pdf");
    expect(at(rows, "x.pdf").row.review_bucket).toBe("needs_review");
    expect(at(rows, "x.pdf").row.reason_codes).toContain("EXTENSION_MISMATCH");
    expect(at(rows, "empty.txt").row.review_bucket).toBe("needs_review");
    expect(at(rows, "empty.txt").row.reason_codes).toContain("EMPTY_FILE");
  });
});
