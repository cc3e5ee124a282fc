/**
 * A live preview of a naming template on three sample files, in the browser. Parsing and rendering are the
 * server's own (`parseTemplate` / `renderTemplate` from `@vetted/fileorg/browser`), so the preview cannot
 * drift from what analyze will do.
 */
import { parseTemplate, renderTemplate } from "@vetted/fileorg/browser";

/** A sample file the preview renders the template for. */
export interface SampleFile {
  /** Absolute path under the source folder. */
  sourcePath: string;
  category: string;
  /** The file's date, ms since the epoch (UTC). */
  date: number;
  sha256: string;
}

/** The outcome of a preview: three targets, or the reason the template is refused. */
export type NamingPreview = { ok: true; targets: string[] } | { ok: false; message: string };

/** Three sample files under `sourceRoot` (a document, a photo in a sub-folder, an archive). */
export function sampleFiles(sourceRoot: string): SampleFile[] {
  const root = sourceRoot.replace(/\/+$/, "") || "/";
  const at = (rel: string) => (root === "/" ? `/${rel}` : `${root}/${rel}`);
  return [
    {
      sourcePath: at("Invoice March.pdf"),
      category: "documents",
      date: Date.UTC(2024, 2, 14),
      sha256: "3f2a9c01d4e5b6a7",
    },
    {
      sourcePath: at("Camera/IMG_20230211_101500.jpg"),
      category: "images",
      date: Date.UTC(2023, 1, 11),
      sha256: "a81be0c2f3d4e5f6",
    },
    {
      sourcePath: at("old/backups/site.tar.gz"),
      category: "archives",
      date: Date.UTC(2021, 10, 2),
      sha256: "0c9d8e7f6a5b4c3d",
    },
  ];
}

/** The preview of `template` on the three sample files, relative to the output folder. */
export function previewNamingTemplate(template: string, sourceRoot: string): NamingPreview {
  if (template.trim() === "") {
    return { ok: false, message: "Type a naming template, e.g. {category}/{yyyy}/{name}{ext}." };
  }
  const parsed = parseTemplate(template);
  if (!parsed.ok) return parsed;
  const targets = sampleFiles(sourceRoot).map((file) =>
    renderTemplate(parsed.template, {
      category: file.category,
      mtime: file.date,
      date: file.date,
      fileName: file.sourcePath.slice(file.sourcePath.lastIndexOf("/") + 1),
      sha256: file.sha256,
      sourcePath: file.sourcePath,
      sourceRoot,
    }),
  );
  return { ok: true, targets };
}
