/**
 * Test helpers of `@vetted/fileorg`, for this package's tests and the server's: tiny real files whose content
 * carries a date (a JPEG with EXIF, a PDF with a CreationDate, a .docx with core properties).
 * @module
 */
export {
  docxCreated,
  JPEG_NO_EXIF,
  jpegWithExif,
  pdfWithCreationDate,
  zipOf,
} from "./tests/content-fixtures.js";
