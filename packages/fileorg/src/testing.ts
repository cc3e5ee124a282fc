/**
 * Test helpers of `@vetted/fileorg`, for this package's tests and the server's: tiny real files whose content
 * carries a date (a JPEG with EXIF, a PDF with a CreationDate, a .docx with core properties), and a one-page PDF that renders (a blue rectangle).
 * @module
 */
export {
  docxCreated,
  JPEG_NO_EXIF,
  jpegWithExif,
  onePagePdf,
  pdfWithCreationDate,
  zipOf,
} from "./tests/content-fixtures.js";
