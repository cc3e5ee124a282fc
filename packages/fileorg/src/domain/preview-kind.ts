/** What a thumbnail can be made of: an image, or a PDF's first page. */
export type PreviewKind = "image" | "pdf";

/** The kind of thumbnail a MIME type gets, or undefined (SVG is never rendered: it is a document). */
export function previewKindOf(mime: string | null | undefined): PreviewKind | undefined {
  if (mime === "application/pdf") return "pdf";
  if (mime?.startsWith("image/") === true && mime !== "image/svg+xml") return "image";
  return undefined;
}
