import { categoryOfExtension, categoryOfMime } from "./categorize.js";
import { basename, extname } from "./posix-path.js";

/**
 * Extensions whose files always start with magic bytes: a file named so whose content shows none (plain
 * text, or bytes no signature knows) is not what its name says.
 */
const MAGIC_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "pdf png jpg jpeg gif bmp webp tif tiff heic heif avif psd ico " +
    "zip gz tgz bz2 xz zst 7z rar docx xlsx pptx odt ods odp epub " +
    "mp3 flac ogg oga opus m4a wav aiff mp4 m4v mov mkv webm avi wmv flv " +
    "exe msi deb rpm apk woff woff2 otf ttf sqlite"
  ).split(" "),
);

/** Reason codes the content check adds; each sends a row to `needs_review`. */
export const CONTENT_REASONS = {
  mismatch: "EXTENSION_MISMATCH",
  empty: "EMPTY_FILE",
  added: "EXTENSION_ADDED",
} as const;

/** What the bytes of a file showed: its size, and the type its magic bytes name (if any). */
export interface ContentFacts {
  /** The file name's extension with its dot (`.pdf`), or `""`. */
  ext: string;
  size: number;
  /** The type the magic bytes name, if they name one. */
  sniffed: { mime: string; ext: string } | undefined;
  /** Whether the file could be read (a blocked row says nothing about its content). */
  readable: boolean;
}

/** The verdict on a file's name against its content. */
export interface ContentVerdict {
  /** An extension (with its dot) to append to a name that has none. */
  appendExt: string | undefined;
  /** `EXTENSION_MISMATCH`, `EMPTY_FILE` and/or `EXTENSION_ADDED`. */
  reasonCodes: string[];
}

/**
 * Compares a file's name with its content: a zero-byte file is `EMPTY_FILE`; a name without an extension
 * gets the one its magic bytes name (`scan` that is a PDF → `scan.pdf`, `EXTENSION_ADDED`); an extension
 * whose kind the bytes contradict (another kind of magic, or none where its format always has one) is
 * `EXTENSION_MISMATCH`. Pure.
 */
export function checkContent(facts: ContentFacts): ContentVerdict {
  if (!facts.readable) return { appendExt: undefined, reasonCodes: [] };
  if (facts.size === 0) return { appendExt: undefined, reasonCodes: [CONTENT_REASONS.empty] };
  const ext = facts.ext.replace(/^\./, "").toLowerCase();
  const { sniffed } = facts;
  if (ext === "") {
    return sniffed === undefined
      ? { appendExt: undefined, reasonCodes: [] }
      : { appendExt: `.${sniffed.ext}`, reasonCodes: [CONTENT_REASONS.added] };
  }
  if (sniffed === undefined) {
    return { appendExt: undefined, reasonCodes: MAGIC_EXTENSIONS.has(ext) ? [CONTENT_REASONS.mismatch] : [] };
  }
  if (sniffed.ext === ext) return { appendExt: undefined, reasonCodes: [] };
  const byExt = categoryOfExtension(ext);
  const byMime = categoryOfMime(sniffed.mime);
  const contradicts = byExt !== undefined && byMime !== undefined && byExt !== byMime;
  return { appendExt: undefined, reasonCodes: contradicts ? [CONTENT_REASONS.mismatch] : [] };
}

/**
 * The file name a template renders for a row: the source's name, with the extension analyze appended to
 * a name that had none (`EXTENSION_ADDED`: the target's extension), so a re-render keeps it.
 */
export function renderedFileName(
  sourcePath: string,
  targetPath: string,
  reasonCodes: readonly string[],
): string {
  const name = basename(sourcePath);
  if (!reasonCodes.includes(CONTENT_REASONS.added)) return name;
  return name + extname(basename(targetPath));
}
