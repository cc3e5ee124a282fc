import { FileorgError } from "../errors.js";
import { standardFontsDir } from "./readers/pdf-text.js";

/*
 * The heavy parts of previews, loaded on first use: `sharp` (image thumbnails) and `pdfjs-dist` with
 * `@napi-rs/canvas` (a PDF's first page). They are optional peers of `@vetted/fileorg`: when one is not
 * installed, the preview fails with PREVIEW_UNAVAILABLE naming the package to install.
 */

/** The optional package each preview kind needs. */
export const PREVIEW_PACKAGES = {
  image: ["sharp"],
  pdf: ["pdfjs-dist", "@napi-rs/canvas"],
} as const;

/** The one image format thumbnails are written in. */
export const THUMBNAIL_TYPE = "image/webp";

interface SharpInstance {
  rotate(): SharpInstance;
  resize(options: {
    width: number;
    height: number;
    fit: "inside";
    withoutEnlargement: boolean;
  }): SharpInstance;
  webp(options: { quality: number }): SharpInstance;
  toBuffer(): Promise<Buffer>;
}
type SharpFactory = (input: Buffer, options: { limitInputPixels: number; failOn: "none" }) => SharpInstance;

interface PdfCanvas {
  encode(format: "webp", quality: number): Promise<Buffer>;
}
interface PdfViewport {
  width: number;
  height: number;
}
interface PdfPage {
  getViewport(options: { scale: number }): PdfViewport;
  render(params: { canvas: PdfCanvas; canvasContext: unknown; viewport: PdfViewport }): {
    promise: Promise<void>;
  };
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
  canvasFactory: { create(width: number, height: number): { canvas: PdfCanvas; context: unknown } };
  destroy(): Promise<void>;
}
interface PdfJs {
  getDocument(params: Record<string, unknown>): { promise: Promise<PdfDocument> };
}

/**
 * Imports an optional peer by name, or throws PREVIEW_UNAVAILABLE naming it (the `importer` is the test's
 * seam to name a package that is not installed).
 */
export async function loadOptional<T>(
  name: string,
  importer: (name: string) => Promise<unknown> = (n) => import(n),
): Promise<T> {
  try {
    return (await importer(name)) as T;
  } catch (err) {
    throw new FileorgError(
      "PREVIEW_UNAVAILABLE",
      `Previews of this file type need the optional package ${name}: install it next to @vetted/fileorg (npm install ${name}).`,
      { package: name, cause: err instanceof Error ? err.message : String(err) },
    );
  }
}

let sharpLoaded: Promise<SharpFactory> | undefined;
let pdfLoaded: Promise<{ pdfjs: PdfJs; fonts: string | undefined }> | undefined;

function loadSharp(): Promise<SharpFactory> {
  sharpLoaded ??= loadOptional<{ default: SharpFactory }>("sharp").then((m) => m.default);
  // A failed load is retried on the next call (the package may be installed meanwhile).
  sharpLoaded.catch(() => {
    sharpLoaded = undefined;
  });
  return sharpLoaded;
}

function loadPdf(): Promise<{ pdfjs: PdfJs; fonts: string | undefined }> {
  pdfLoaded ??= (async () => {
    // pdfjs renders on @napi-rs/canvas in Node: check it first so the error names the missing package.
    await loadOptional("@napi-rs/canvas");
    const pdfjs = await loadOptional<PdfJs>("pdfjs-dist/legacy/build/pdf.mjs");
    return { pdfjs, fonts: standardFontsDir() };
  })();
  pdfLoaded.catch(() => {
    pdfLoaded = undefined;
  });
  return pdfLoaded;
}

function renderFailed(kind: string, err: unknown): FileorgError {
  return new FileorgError("PREVIEW_FAILED", `The ${kind} could not be rendered (damaged or unsupported).`, {
    cause: err instanceof Error ? err.message : String(err),
  });
}

/** Largest decoded image a thumbnail is made from (pixels): a guard against decompression bombs. */
const MAX_INPUT_PIXELS = 100_000_000;

/** A WebP thumbnail of an image's bytes, at most `size` px on its longest side, turned upright by EXIF. */
export async function renderImageThumbnail(bytes: Buffer, size: number): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    return await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "none" })
      .rotate()
      .resize({ width: size, height: size, fit: "inside", withoutEnlargement: true })
      .webp({ quality: 78 })
      .toBuffer();
  } catch (err) {
    throw renderFailed("image", err);
  }
}

/** A WebP rendering of a PDF's first page, at most `size` px on its longest side. */
export async function renderPdfFirstPage(bytes: Buffer, size: number): Promise<Buffer> {
  const { pdfjs, fonts } = await loadPdf();
  let doc: PdfDocument | undefined;
  try {
    doc = await pdfjs.getDocument({
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      disableFontFace: true,
      verbosity: 0,
      ...(fonts === undefined ? {} : { standardFontDataUrl: fonts }),
    }).promise;
    const page = await doc.getPage(1);
    const natural = page.getViewport({ scale: 1 });
    const scale = size / Math.max(natural.width, natural.height, 1);
    const viewport = page.getViewport({ scale });
    const { canvas, context } = doc.canvasFactory.create(
      Math.max(1, Math.ceil(viewport.width)),
      Math.max(1, Math.ceil(viewport.height)),
    );
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    return await canvas.encode("webp", 78);
  } catch (err) {
    throw renderFailed("PDF", err);
  } finally {
    await doc?.destroy().catch(() => undefined);
  }
}
