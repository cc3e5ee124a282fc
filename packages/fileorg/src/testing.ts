/**
 * Test helpers of `@vetted/fileorg`, for this package's tests and the server's: tiny real files whose content
 * carries a date (a JPEG with EXIF, a PDF with a CreationDate, a .docx with core properties), a one-page PDF that renders (a blue rectangle) and a one-colour PNG.
 * @module
 */
export {
  docxCreated,
  JPEG_NO_EXIF,
  jpegWithExif,
  onePagePdf,
  pdfWithCreationDate,
  solidPng,
  zipOf,
} from "./tests/content-fixtures.js";
