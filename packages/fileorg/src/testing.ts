/**
 * Test helpers of `@vetted/fileorg`, for this package's tests and the server's: tiny real files whose content
 * carries a date (a JPEG with EXIF, a PDF with a CreationDate, a .docx with core properties) or other metadata
 * (a JPEG with its camera, an MP3 with ID3 tags), PDFs with real text, a one-page PDF that renders (a blue
 * rectangle) and a one-colour PNG.
 * @module
 */
export {
  docxCreated,
  type Id3Tags,
  JPEG_NO_EXIF,
  jpegWithCamera,
  jpegWithExif,
  mp3WithId3,
  onePagePdf,
  pdfWithCreationDate,
  pdfWithText,
  solidPng,
  zipOf,
} from "./tests/content-fixtures.js";
