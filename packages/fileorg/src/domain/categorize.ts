import type { Category } from "./manifest.js";

const BY_EXTENSION: Record<string, Category> = {};
const add = (category: Category, exts: string) => {
  for (const ext of exts.split(" ")) BY_EXTENSION[ext] = category;
};
add("documents", "pdf doc docx odt rtf txt md markdown tex pages wpd log");
add("images", "jpg jpeg png gif bmp tif tiff webp heic heif avif svg ico psd raw cr2 nef arw dng");
add("audio", "mp3 wav flac aac ogg oga m4a wma opus aiff aif mid midi");
add("video", "mp4 mkv mov avi wmv flv webm m4v mpg mpeg 3gp ogv");
add("archives", "zip rar 7z tar gz tgz bz2 xz zst lz cab iso");
add(
  "code",
  "js mjs cjs ts tsx jsx py rb go rs java c h cpp hpp cs php sh bash zsh ps1 html htm css scss json yaml yml toml xml sql swift kt lua r pl",
);
add("spreadsheets", "xls xlsx ods csv tsv numbers");
add("presentations", "ppt pptx odp key");
add("ebooks", "epub mobi azw azw3 fb2 djvu");
add("installers", "exe msi dmg pkg deb rpm apk appimage");
add("fonts", "ttf otf woff woff2");

/** The category of a file extension (lower-case, no dot), or `undefined` when unknown. */
export function categoryOfExtension(ext: string): Category | undefined {
  return BY_EXTENSION[ext.toLowerCase()];
}

const MIME_PREFIX: ReadonlyArray<readonly [string, Category]> = [
  ["image/", "images"],
  ["audio/", "audio"],
  ["video/", "video"],
  ["font/", "fonts"],
];
const MIME_EXACT: Record<string, Category> = {
  "application/pdf": "documents",
  "application/rtf": "documents",
  "application/msword": "documents",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "documents",
  "application/vnd.oasis.opendocument.text": "documents",
  "application/vnd.ms-excel": "spreadsheets",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "spreadsheets",
  "application/vnd.oasis.opendocument.spreadsheet": "spreadsheets",
  "application/vnd.ms-powerpoint": "presentations",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "presentations",
  "application/vnd.oasis.opendocument.presentation": "presentations",
  "application/epub+zip": "ebooks",
  "application/x-mobipocket-ebook": "ebooks",
  "application/zip": "archives",
  "application/x-rar-compressed": "archives",
  "application/vnd.rar": "archives",
  "application/x-7z-compressed": "archives",
  "application/x-tar": "archives",
  "application/gzip": "archives",
  "application/x-bzip2": "archives",
  "application/x-xz": "archives",
  "application/zstd": "archives",
  "application/x-iso9660-image": "archives",
  "application/x-msdownload": "installers",
  "application/x-msi": "installers",
  "application/x-apple-diskimage": "installers",
  "application/x-deb": "installers",
  "application/x-rpm": "installers",
  "application/vnd.android.package-archive": "installers",
  "application/x-elf": "installers",
};

/** The category of a MIME type, or `undefined` when it does not say. */
export function categoryOfMime(mime: string): Category | undefined {
  const exact = MIME_EXACT[mime];
  if (exact !== undefined) return exact;
  for (const [prefix, category] of MIME_PREFIX) if (mime.startsWith(prefix)) return category;
  return undefined;
}

const TEXT_MIME: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  log: "text/plain",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  svg: "image/svg+xml",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  sh: "application/x-sh",
};

/** A MIME type guessed from an extension alone, when one is known. */
export function mimeOfExtension(ext: string): string | undefined {
  return TEXT_MIME[ext.toLowerCase()];
}

/** The outcome of classifying one file. */
export interface Classification {
  category: Category;
  mime: string | null;
  confidence: number;
  reasonCodes: string[];
}

/**
 * Classifies a file from the MIME type sniffed from its bytes (if any) and its extension. Agreement of
 * both is the most confident; the extension alone is trusted less; disagreement sends the row to review.
 */
export function classifyFile(input: { ext: string; sniffedMime: string | undefined }): Classification {
  const ext = input.ext.replace(/^\./, "").toLowerCase();
  const byExt = ext === "" ? undefined : categoryOfExtension(ext);
  if (input.sniffedMime !== undefined) {
    const byMime = categoryOfMime(input.sniffedMime);
    if (byMime !== undefined) {
      if (byExt === undefined || byExt === byMime) {
        return {
          category: byMime,
          mime: input.sniffedMime,
          confidence: byExt === byMime ? 0.95 : 0.85,
          reasonCodes: ["MIME_FROM_MAGIC"],
        };
      }
      return {
        category: byMime,
        mime: input.sniffedMime,
        confidence: 0.6,
        reasonCodes: ["MIME_FROM_MAGIC", "EXTENSION_MISMATCH"],
      };
    }
  }
  if (byExt !== undefined) {
    return {
      category: byExt,
      mime: input.sniffedMime ?? mimeOfExtension(ext) ?? null,
      confidence: 0.8,
      reasonCodes: ["MIME_FROM_EXTENSION"],
    };
  }
  return {
    category: "other",
    mime: input.sniffedMime ?? null,
    confidence: 0.4,
    reasonCodes: ["UNKNOWN_TYPE"],
  };
}
