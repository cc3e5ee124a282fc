/**
 * Naming templates: parse `{category}/{yyyy}/{name}{ext}` and render a file's target path. Pure and free
 * of `node:` imports (paths and byte lengths come from `posix-path.ts`), so `@vetted/fileorg/browser`
 * serves the same renderer to the web console's live preview.
 */
import { MAX_SEGMENT_BYTES, trimTrailingDotsAndSpaces, truncateUtf8 } from "./path-limits.js";
import { basename, dirname, extname, isInside, utf8ByteLength } from "./posix-path.js";

export { isInside } from "./posix-path.js";

/** Tokens a naming template may use. */
export const TEMPLATE_TOKENS = [
  "category",
  "yyyy",
  "mm",
  "dd",
  "name",
  "ext",
  "hash8",
  "parent",
  "relpath",
  "camera_make",
  "camera_model",
  "artist",
  "album",
  "track",
  "title",
  "unit",
] as const;
/** A naming-template token. */
export type TemplateToken = (typeof TEMPLATE_TOKENS)[number];

/** The tokens that make a file name vary per file (`{title}` falls back to `{name}`). */
const FILE_NAME_TOKENS: ReadonlySet<TemplateToken> = new Set(["name", "hash8", "title"]);

/** A parsed naming template: one list of literal/token parts per path segment. */
export type ParsedTemplate = ReadonlyArray<ReadonlyArray<{ literal: string } | { token: TemplateToken }>>;

/** The outcome of parsing a template. */
export type TemplateParse = { ok: true; template: ParsedTemplate } | { ok: false; message: string };

/** Parses `{category}/{yyyy}/{name}{ext}`-style templates; unknown tokens and absolute or `..` paths are refused. */
export function parseTemplate(source: string): TemplateParse {
  if (source.startsWith("/") || source.startsWith("\\") || /^[A-Za-z]:/.test(source)) {
    return { ok: false, message: "The naming template must be relative to the output directory." };
  }
  const segments = source.split("/");
  const parsed: Array<Array<{ literal: string } | { token: TemplateToken }>> = [];
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") {
      return { ok: false, message: `The naming template has an empty, "." or ".." segment: ${source}` };
    }
    const parts: Array<{ literal: string } | { token: TemplateToken }> = [];
    const re = /\{([^{}]*)\}/g;
    let last = 0;
    for (let m = re.exec(segment); m !== null; m = re.exec(segment)) {
      if (m.index > last) parts.push({ literal: segment.slice(last, m.index) });
      const name = m[1] ?? "";
      if (!(TEMPLATE_TOKENS as readonly string[]).includes(name)) {
        return {
          ok: false,
          message: `Unknown token {${name}} in the naming template; use ${TEMPLATE_TOKENS.map((t) => `{${t}}`).join(" ")}.`,
        };
      }
      parts.push({ token: name as TemplateToken });
      last = m.index + m[0].length;
    }
    if (last < segment.length) parts.push({ literal: segment.slice(last) });
    if (parts.length > 1 && parts.some((p) => "token" in p && p.token === "relpath")) {
      return { ok: false, message: RELPATH_WHOLE_SEGMENT };
    }
    if (parts.some((p) => "literal" in p && /[{}]/.test(p.literal))) {
      return { ok: false, message: `Unbalanced braces in the naming template: ${source}` };
    }
    parsed.push(parts);
  }
  const lastSegment = parsed[parsed.length - 1] ?? [];
  if (!lastSegment.some((p) => "token" in p && FILE_NAME_TOKENS.has(p.token))) {
    return {
      ok: false,
      message: "The last segment of the naming template must contain {name} or {hash8} (or {title}).",
    };
  }
  return { ok: true, template: parsed };
}

/** Why a template with `{relpath}` mixed into a segment is refused. */
export const RELPATH_WHOLE_SEGMENT =
  "{relpath} must be a whole path segment (e.g. {category}/{relpath}/{name}{ext}): it stands for zero or more folders.";

/** What a template is evaluated against. */
export interface TemplateContext {
  category: string;
  /** Modification time, ms since the epoch; dates are taken in UTC. */
  mtime: number;
  /** The file's best date (content, name, else mtime), ms since the epoch; `{yyyy} {mm} {dd}` use it when given. */
  date?: number | null | undefined;
  /** The file's base name, with its extension. */
  fileName: string;
  sha256: string | null;
  /** The file's absolute path: `{parent}` is its folder's name. */
  sourcePath?: string | undefined;
  /** The analyzed folder: `{relpath}` is the file's folder relative to it. */
  sourceRoot?: string | undefined;
  /** What the content says (camera, tags): `{camera_make}` `{camera_model}` `{artist}` `{album}` `{track}` `{title}`. */
  meta?: TemplateMeta | null | undefined;
  /** The folder of the unit kept whole the file belongs to (`{unit}` is its name). */
  unitRoot?: string | null | undefined;
}

/** The content metadata a template reads (a row's `meta`). */
export interface TemplateMeta {
  camera_make?: string | undefined;
  camera_model?: string | undefined;
  artist?: string | undefined;
  album_artist?: string | undefined;
  album?: string | undefined;
  title?: string | undefined;
  track?: number | undefined;
}

/** What a metadata token renders when the content does not say (`{title}` falls back to `{name}`, `{unit}` to `{parent}`). */
export const TOKEN_FALLBACKS = {
  camera_make: "Unknown Camera",
  camera_model: "Unknown Model",
  artist: "Unknown Artist",
  album: "Unknown Album",
  track: "00",
} as const;

/** The values of the metadata tokens, each with its fallback. */
function metaValues(ctx: TemplateContext, name: string) {
  const m = ctx.meta ?? undefined;
  const track = m?.track;
  return {
    camera_make: m?.camera_make ?? TOKEN_FALLBACKS.camera_make,
    camera_model: m?.camera_model ?? TOKEN_FALLBACKS.camera_model,
    artist: m?.artist ?? m?.album_artist ?? TOKEN_FALLBACKS.artist,
    album: m?.album ?? TOKEN_FALLBACKS.album,
    track: track === undefined ? TOKEN_FALLBACKS.track : String(track).padStart(2, "0"),
    title: m?.title ?? name,
    unit: ctx.unitRoot == null ? parentName(ctx) : basename(ctx.unitRoot),
  };
}

/** The folders between `sourceRoot` and the file, each made a legal segment; none at the root or outside it. */
export function relativeFolders(sourcePath: string | undefined, sourceRoot: string | undefined): string[] {
  if (sourcePath === undefined || sourceRoot === undefined) return [];
  const folder = dirname(sourcePath);
  if (folder === sourceRoot || !isInside(sourceRoot, folder)) return [];
  const rest = folder.slice(sourceRoot.length).replace(/^\/+/, "");
  return rest === "" ? [] : rest.split("/").map((segment) => sanitizeSegment(segment));
}

/** The name of the file's folder (`{parent}`). */
function parentName(ctx: TemplateContext): string {
  if (ctx.sourcePath === undefined) return "";
  return basename(dirname(ctx.sourcePath));
}

const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const ILLEGAL = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;

/**
 * Makes one path segment legal on every common file system; never empty, never `.` or `..`, at most 255
 * bytes (UTF-8; a long segment is cut, keeping its extension when asked and when the extension leaves room
 * for a name). Linear in the length of `raw`.
 */
export function sanitizeSegment(raw: string, keepExtension = false): string {
  let s = trimTrailingDotsAndSpaces(raw.normalize("NFC").replace(ILLEGAL, "_").trim());
  if (s === "" || s === "." || s === "..") s = "_";
  if (RESERVED.test(s)) s = `_${s}`;
  if (utf8ByteLength(s) > MAX_SEGMENT_BYTES) {
    const found = keepExtension ? extname(s) : "";
    // An extension too long to leave room for a name is cut with the rest.
    const ext = utf8ByteLength(found) > MAX_SEGMENT_BYTES / 2 ? "" : found;
    const stem = truncateUtf8(s.slice(0, s.length - ext.length), MAX_SEGMENT_BYTES - utf8ByteLength(ext));
    s = ext === "" ? trimTrailingDotsAndSpaces(stem) || "_" : stem + ext;
  }
  return s;
}

/** Splits a file name into `{name}` and `{ext}` (`.bashrc` has no extension). */
export function splitName(fileName: string): { name: string; ext: string } {
  const ext = extname(fileName);
  if (ext === "" || ext === fileName) return { name: fileName, ext: "" };
  return { name: fileName.slice(0, -ext.length), ext };
}

/** Evaluates a parsed template into a relative POSIX path whose every segment is legal and non-empty. */
export function renderTemplate(template: ParsedTemplate, ctx: TemplateContext): string {
  const date = new Date(ctx.date ?? ctx.mtime);
  const { name, ext } = splitName(ctx.fileName);
  const values: Record<TemplateToken, string> = {
    category: ctx.category,
    yyyy: String(date.getUTCFullYear()).padStart(4, "0"),
    mm: String(date.getUTCMonth() + 1).padStart(2, "0"),
    dd: String(date.getUTCDate()).padStart(2, "0"),
    name,
    ext,
    hash8: (ctx.sha256 ?? "nohash00").slice(0, 8),
    parent: parentName(ctx),
    relpath: "",
    ...metaValues(ctx, name),
  };
  const segments = template.flatMap((parts, i) => {
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only !== undefined && "token" in only && only.token === "relpath") {
      return relativeFolders(ctx.sourcePath, ctx.sourceRoot);
    }
    return [
      sanitizeSegment(
        parts.map((p) => ("literal" in p ? p.literal : values[p.token])).join(""),
        i === template.length - 1,
      ),
    ];
  });
  return segments.join("/");
}
