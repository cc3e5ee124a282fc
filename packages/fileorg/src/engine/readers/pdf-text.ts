/**
 * A PDF's text as its excerpt, for the rules' `text` filter: read by the file threads through `pdfjs-dist`
 * (an optional peer, loaded on the first PDF of an analyze that asks for PDF text: when it is not installed,
 * PDFs simply have no excerpt). Only an analyze whose rules test `text` asks (running pdfjs over every PDF
 * costs too much otherwise). Bounded: PDFs up to {@link PDF_TEXT_MAX_BYTES}, the first
 * {@link PDF_TEXT_PAGES} pages, the text files' excerpt bound, a time limit; anything unexpected yields none.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Importer, TEXT_EXCERPT_BYTES, textExcerptOf } from "./content-meta.js";

/** The largest PDF whose text is read (a larger one has no excerpt). */
export const PDF_TEXT_MAX_BYTES = 16 << 20;
/** How many first pages of a PDF are read for its excerpt. */
export const PDF_TEXT_PAGES = 5;
/** How long one PDF's text may take before it is given up (no excerpt). */
const PDF_TEXT_TIMEOUT_MS = 10_000;

interface TextItem {
  str?: unknown;
  hasEOL?: unknown;
}

interface PdfPage {
  getTextContent(): Promise<{ items: readonly TextItem[] }>;
  cleanup(): unknown;
}

interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
}

interface PdfJs {
  getDocument(source: Record<string, unknown>): {
    promise: Promise<PdfDocument>;
    destroy(): Promise<void>;
  };
}

/** pdfjs once loaded; `null` when it is not installed (then no PDF has text). */
let pdfjsLoaded: Promise<PdfJs | null> | undefined;

function importPdfJs(importer: Importer): Promise<PdfJs | null> {
  return importer("pdfjs-dist/legacy/build/pdf.mjs").then(
    (m) => m as PdfJs,
    () => null,
  );
}

/** pdfjs' standard fonts folder (for PDFs that use a base-14 font without embedding it). */
export function standardFontsDir(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve("pdfjs-dist/package.json");
    return `${join(dirname(pkg), "standard_fonts")}/`;
  } catch {
    return undefined;
  }
}

/** The text of a PDF's first pages, each item's text in order, a line break where pdfjs ends a line. */
async function firstPagesText(doc: PdfDocument): Promise<string> {
  let text = "";
  const pages = Math.min(doc.numPages, PDF_TEXT_PAGES);
  for (let n = 1; n <= pages && Buffer.byteLength(text) < TEXT_EXCERPT_BYTES; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    for (const item of content.items) {
      if (typeof item.str === "string") text += item.str;
      if (item.hasEOL === true) text += "\n";
    }
    page.cleanup();
    text += "\n";
  }
  return text;
}

/**
 * The excerpt of a PDF (its whole bytes): the text of its first pages, cut at the text files' bound; or
 * `undefined` (pdfjs not installed, no text — a scan —, a damaged or encrypted file, too slow). Never throws.
 * `importer` stands for another installation (loaded afresh, not kept).
 */
export async function pdfTextOf(bytes: Uint8Array, importer?: Importer): Promise<string | undefined> {
  if (bytes.length > PDF_TEXT_MAX_BYTES) return undefined;
  pdfjsLoaded ??= importPdfJs((name) => import(name));
  const pdfjs = await (importer === undefined ? pdfjsLoaded : importPdfJs(importer));
  if (pdfjs === null) return undefined;
  const fonts = standardFontsDir();
  let task: ReturnType<PdfJs["getDocument"]> | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    task = pdfjs.getDocument({
      // pdfjs refuses a Node Buffer: a plain Uint8Array (the file threads hand one; a Buffer is copied).
      data: Buffer.isBuffer(bytes) ? new Uint8Array(bytes) : bytes,
      isEvalSupported: false,
      disableFontFace: true,
      stopAtErrors: false,
      verbosity: 0,
      ...(fonts === undefined ? {} : { standardFontDataUrl: fonts }),
    });
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), PDF_TEXT_TIMEOUT_MS);
    });
    const text = await Promise.race([task.promise.then(firstPagesText), timeout]);
    if (text === undefined || text.trim() === "") return undefined;
    return textExcerptOf(Buffer.from(text.trim(), "utf8"));
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    await task?.destroy().catch(() => undefined);
  }
}
