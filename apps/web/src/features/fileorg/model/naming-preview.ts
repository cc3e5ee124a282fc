/**
 * A live preview of a naming template on sample files, in the browser. It mirrors the server's
 * `parseTemplate` / `renderTemplate` (@vetted/fileorg) for the tokens and segment rules a person types;
 * `naming-preview.test.ts` checks it against the server's renderer so the two cannot drift apart.
 */

/** Tokens a naming template may use (the server's `TEMPLATE_TOKENS`). */
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
] as const;
type Token = (typeof TEMPLATE_TOKENS)[number];
type Part = { literal: string } | { token: Token };

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

const RELPATH_WHOLE =
  "{relpath} must be a whole path segment (e.g. {category}/{relpath}/{name}{ext}): it stands for zero or more folders.";

function isToken(name: string): name is Token {
  return (TEMPLATE_TOKENS as readonly string[]).includes(name);
}

function parseSegment(segment: string): Part[] | string {
  const parts: Part[] = [];
  const re = /\{([^{}]*)\}/g;
  let last = 0;
  for (let m = re.exec(segment); m !== null; m = re.exec(segment)) {
    if (m.index > last) parts.push({ literal: segment.slice(last, m.index) });
    const name = m[1] ?? "";
    if (!isToken(name)) {
      return `Unknown token {${name}} in the naming template; use ${TEMPLATE_TOKENS.map((t) => `{${t}}`).join(" ")}.`;
    }
    parts.push({ token: name });
    last = m.index + m[0].length;
  }
  if (last < segment.length) parts.push({ literal: segment.slice(last) });
  if (parts.length > 1 && parts.some((p) => "token" in p && p.token === "relpath")) return RELPATH_WHOLE;
  if (parts.some((p) => "literal" in p && /[{}]/.test(p.literal))) {
    return "Unbalanced braces in the naming template.";
  }
  return parts;
}

/** Parses a template the way the server does; a string is the reason it is refused. */
export function parseNamingTemplate(source: string): Part[][] | string {
  if (source.trim() === "") return "Type a naming template, e.g. {category}/{yyyy}/{name}{ext}.";
  if (source.startsWith("/") || source.startsWith("\\") || /^[A-Za-z]:/.test(source)) {
    return "The naming template must be relative to the output directory.";
  }
  const parsed: Part[][] = [];
  for (const segment of source.split("/")) {
    if (segment === "" || segment === "." || segment === "..") {
      return `The naming template has an empty, "." or ".." segment: ${source}`;
    }
    const parts = parseSegment(segment);
    if (typeof parts === "string") return parts;
    parsed.push(parts);
  }
  const lastSegment = parsed[parsed.length - 1] ?? [];
  if (!lastSegment.some((p) => "token" in p && (p.token === "name" || p.token === "hash8"))) {
    return "The last segment of the naming template must contain {name} or {hash8}.";
  }
  return parsed;
}

const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const ILLEGAL = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;

function sanitize(raw: string): string {
  let s = raw.normalize("NFC").replace(ILLEGAL, "_").trim();
  s = s.replace(/[. ]+$/, "");
  if (s === "" || s === "." || s === "..") s = "_";
  if (RESERVED.test(s)) s = `_${s}`;
  return s;
}

function splitName(fileName: string): { name: string; ext: string } {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0 || dot === fileName.length - 1) return { name: fileName, ext: "" };
  return { name: fileName.slice(0, dot), ext: fileName.slice(dot) };
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function relativeFolders(sourcePath: string, sourceRoot: string): string[] {
  const folder = dirname(sourcePath);
  const prefix = sourceRoot.endsWith("/") ? sourceRoot : `${sourceRoot}/`;
  if (folder === sourceRoot || !folder.startsWith(prefix)) return [];
  return folder.slice(prefix.length).split("/").filter(Boolean).map(sanitize);
}

/** Renders one sample file through a parsed template, relative to the output folder. */
export function renderSample(template: Part[][], file: SampleFile, sourceRoot: string): string {
  const date = new Date(file.date);
  const { name, ext } = splitName(basename(file.sourcePath));
  const values: Record<Token, string> = {
    category: file.category,
    yyyy: String(date.getUTCFullYear()).padStart(4, "0"),
    mm: String(date.getUTCMonth() + 1).padStart(2, "0"),
    dd: String(date.getUTCDate()).padStart(2, "0"),
    name,
    ext,
    hash8: file.sha256.slice(0, 8),
    parent: basename(dirname(file.sourcePath)),
    relpath: "",
  };
  return template
    .flatMap((parts) => {
      const only = parts.length === 1 ? parts[0] : undefined;
      if (only !== undefined && "token" in only && only.token === "relpath") {
        return relativeFolders(file.sourcePath, sourceRoot);
      }
      return [sanitize(parts.map((p) => ("literal" in p ? p.literal : values[p.token])).join(""))];
    })
    .join("/");
}

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
  const parsed = parseNamingTemplate(template);
  if (typeof parsed === "string") return { ok: false, message: parsed };
  return { ok: true, targets: sampleFiles(sourceRoot).map((f) => renderSample(parsed, f, sourceRoot)) };
}
