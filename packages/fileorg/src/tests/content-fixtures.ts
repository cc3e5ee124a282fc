import { crc32, deflateRawSync, deflateSync } from "node:zlib";

/**
 * A real (tiny) JPEG: SOI, an APP1 Exif segment whose IFD0 points to an Exif IFD holding
 * `DateTimeOriginal` (`YYYY:MM:DD HH:MM:SS`), then EOI.
 */
export function jpegWithExif(dateTimeOriginal: string): Buffer {
  const date = Buffer.from(`${dateTimeOriginal}\0`, "latin1");
  const exifIfd = 8 + 2 + 12 + 4;
  const dateAt = exifIfd + 2 + 12 + 4;
  const tiff = Buffer.alloc(dateAt + date.length);
  tiff.write("II", 0, "latin1");
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  // IFD0: one entry, the Exif IFD pointer (0x8769, LONG).
  tiff.writeUInt16LE(1, 8);
  tiff.writeUInt16LE(0x8769, 10);
  tiff.writeUInt16LE(4, 12);
  tiff.writeUInt32LE(1, 14);
  tiff.writeUInt32LE(exifIfd, 18);
  tiff.writeUInt32LE(0, 22);
  // Exif IFD: one entry, DateTimeOriginal (0x9003, ASCII).
  tiff.writeUInt16LE(1, exifIfd);
  tiff.writeUInt16LE(0x9003, exifIfd + 2);
  tiff.writeUInt16LE(2, exifIfd + 4);
  tiff.writeUInt32LE(date.length, exifIfd + 6);
  tiff.writeUInt32LE(dateAt, exifIfd + 10);
  tiff.writeUInt32LE(0, exifIfd + 14);
  date.copy(tiff, dateAt);
  const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, payload, Buffer.from([0xff, 0xd9])]);
}

/** A JPEG without any EXIF block (SOI, a JFIF APP0, EOI). */
export const JPEG_NO_EXIF = Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex");

/**
 * A one-page PDF whose Info dictionary carries `/CreationDate (D:…)`; `padding` bytes of a comment stream
 * before it put the dictionary past the first megabyte (the reader must find it at the trailer's end).
 */
export function pdfWithCreationDate(creationDate: string, padding = 0): Buffer {
  const filler = padding > 0 ? `%${"x".repeat(padding)}\n` : "";
  return Buffer.from(
    "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" +
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
      "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj\n" +
      filler +
      `4 0 obj << /Producer (test) /CreationDate (${creationDate}) >> endobj\n` +
      "trailer << /Root 1 0 R /Info 4 0 R >>\n%%EOF\n",
    "latin1",
  );
}

/** A zip archive of the given entries (deflated), as Office writes its documents. */
export function zipOf(entries: ReadonlyArray<[string, string]>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const data = Buffer.from(text, "utf8");
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
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
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A minimal .docx whose core properties say it was created at `created` (W3CDTF); `padding` bytes of an XML
 * comment before it inflate the part (a few KiB deflated).
 */
export function docxCreated(created: string, padding = 0): Buffer {
  return zipOf([
    [
      "[Content_Types].xml",
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ],
    [
      "_rels/.rels",
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ],
    [
      "word/document.xml",
      '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hi</w:t></w:r></w:p></w:body></w:document>',
    ],
    [
      "docProps/core.xml",
      `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${padding > 0 ? `<!--${" ".repeat(padding)}-->` : ""}<dcterms:created xsi:type="dcterms:W3CDTF">${created}</dcterms:created></cp:coreProperties>`,
    ],
  ]);
}

/** A PDF of the given objects (object `i + 1` is `objects[i]`, the first the catalog) with a correct xref table. */
function pdfOf(objects: readonly string[]): Buffer {
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** A one-page PDF (200 × 100 pt) whose page is a filled blue rectangle, with a correct xref table. */
export function onePagePdf(): Buffer {
  const stream = "0 0 1 rg 20 20 160 60 re f";
  return pdfOf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ]);
}

/**
 * A PDF with a page per text (ASCII; each line of it drawn in 4 pt Helvetica by a plain content stream: real
 * text a PDF reader extracts, up to 200 lines of 290 characters on a page), with a correct xref table.
 */
export function pdfWithText(pages: readonly string[]): Buffer {
  const font = 3 + pages.length * 2;
  const kids = pages.map((_, i) => `${3 + i * 2} 0 R`).join(" ");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`,
  ];
  for (const [i, text] of pages.entries()) {
    const lines = text.split("\n").map((line) => `(${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj T*`);
    const stream = `BT /F1 4 Tf 3.9 TL 10 780 Td ${lines.join(" ")} ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    );
  }
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  return pdfOf(objects);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A real PNG of `width` × `height` in one colour (RGB 8-bit, zlib-deflated rows). */
export function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(raw)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** One TIFF IFD entry of ASCII text: its tag, and the text (NUL-terminated) placed at `at`. */
interface AsciiEntry {
  tag: number;
  text: Buffer;
}

/**
 * A real (tiny) JPEG whose EXIF says the camera (`Make`, `Model` in IFD0) and, when given, when the photo
 * was taken (`DateTimeOriginal` in the Exif IFD).
 */
export function jpegWithCamera(make: string, model: string, dateTimeOriginal?: string): Buffer {
  const ascii = (tag: number, s: string): AsciiEntry => ({ tag, text: Buffer.from(`${s}\0`, "latin1") });
  const ifd0: AsciiEntry[] = [ascii(0x010f, make), ascii(0x0110, model)];
  const ifd0Count = ifd0.length + 1;
  const ifd0Size = 2 + 12 * ifd0Count + 4;
  const exifIfd = 8 + ifd0Size;
  const exifSize = dateTimeOriginal === undefined ? 0 : 2 + 12 + 4;
  let dataAt = exifIfd + exifSize;
  const data: Buffer[] = [];
  const tiff = Buffer.alloc(dataAt);
  tiff.write("II", 0, "latin1");
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(ifd0Count, 8);
  const entry = (at: number, tag: number, type: number, count: number, value: number) => {
    tiff.writeUInt16LE(tag, at);
    tiff.writeUInt16LE(type, at + 2);
    tiff.writeUInt32LE(count, at + 4);
    tiff.writeUInt32LE(value, at + 8);
  };
  ifd0.forEach((e, i) => {
    entry(10 + 12 * i, e.tag, 2, e.text.length, dataAt);
    data.push(e.text);
    dataAt += e.text.length;
  });
  // The Exif IFD pointer (0x8769) last (tags ascending); no Exif IFD: it points at an empty one.
  entry(10 + 12 * ifd0.length, 0x8769, 4, 1, dateTimeOriginal === undefined ? 0 : exifIfd);
  tiff.writeUInt32LE(0, 10 + 12 * ifd0Count);
  if (dateTimeOriginal !== undefined) {
    const date = Buffer.from(`${dateTimeOriginal}\0`, "latin1");
    tiff.writeUInt16LE(1, exifIfd);
    entry(exifIfd + 2, 0x9003, 2, date.length, dataAt);
    tiff.writeUInt32LE(0, exifIfd + 14);
    data.push(date);
  }
  const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff, ...data]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, payload, Buffer.from([0xff, 0xd9])]);
}

/** ID3v2.3 text frames a test track carries. */
export interface Id3Tags {
  artist?: string;
  album?: string;
  title?: string;
  track?: string;
  year?: string;
  genre?: string;
}

const ID3_FRAMES: Record<keyof Id3Tags, string> = {
  artist: "TPE1",
  album: "TALB",
  title: "TIT2",
  track: "TRCK",
  year: "TYER",
  genre: "TCON",
};

/**
 * A real (tiny) MP3: an ID3v2.3 tag with the given text frames (UTF-16 with its BOM, so any text fits),
 * then `frames` silent MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz).
 */
export function mp3WithId3(tags: Id3Tags, frames = 3): Buffer {
  const parts: Buffer[] = [];
  for (const [key, id] of Object.entries(ID3_FRAMES) as Array<[keyof Id3Tags, string]>) {
    const value = tags[key];
    if (value === undefined) continue;
    const body = Buffer.concat([Buffer.from([0x01, 0xff, 0xfe]), Buffer.from(value, "utf16le")]);
    const header = Buffer.alloc(10);
    header.write(id, 0, "latin1");
    header.writeUInt32BE(body.length, 4);
    parts.push(header, body);
  }
  const frameData = Buffer.concat(parts);
  const size = frameData.length;
  const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
  for (let i = 0; i < 4; i++) header[9 - i] = (size >> (7 * i)) & 0x7f;
  const frame = Buffer.alloc(417);
  frame.writeUInt32BE(0xfffb9000, 0);
  return Buffer.concat([header, frameData, ...Array.from({ length: frames }, () => frame)]);
}
