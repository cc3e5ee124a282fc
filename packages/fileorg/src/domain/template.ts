/**
 * Target paths: the naming-template renderer (re-exported from `naming-template.ts`, the browser-safe half)
 * plus the helpers that resolve, compare and de-duplicate targets.
 */
import { sanitizeSegment, splitName } from "./naming-template.js";
import { pathLengthProblem } from "./path-limits.js";
import { basename, dirname } from "./posix-path.js";

export {
  isInside,
  type ParsedTemplate,
  parseTemplate,
  RELPATH_WHOLE_SEGMENT,
  relativeFolders,
  renderTemplate,
  sanitizeSegment,
  splitName,
  TEMPLATE_TOKENS,
  type TemplateContext,
  type TemplateMeta,
  type TemplateParse,
  type TemplateToken,
  TOKEN_FALLBACKS,
} from "./naming-template.js";

/** The key two paths collide on when they differ only by case or Unicode normalization. */
export function pathKey(path: string): string {
  return path.normalize("NFC").toLowerCase();
}

/** `a/b/name.ext` → `a/b/name (n).ext`. */
export function withSuffix(path: string, n: number): string {
  const dir = dirname(path);
  const { name, ext } = splitName(basename(path));
  const file = `${name} (${n})${ext}`;
  if (dir === ".") return file;
  return dir.endsWith("/") ? `${dir}${file}` : `${dir}/${file}`;
}

/** The outcome of checking an edited target path. */
export type TargetCheck = { ok: true; path: string } | { ok: false; message: string };

/**
 * Resolves an edited target path (absolute, or relative to `outputDir`) into a normalized absolute path,
 * refusing empty, `.`/`..`-escaping, illegal or too long segments and paths over 4096 bytes (checked first,
 * in one pass, so a huge input costs no more than reading it). Whether it is inside the output root is the
 * caller's question (an outside target becomes an `outside_root` conflict).
 */
export function resolveTargetPath(outputDir: string, input: string): TargetCheck {
  if (input.includes("\0")) return { ok: false, message: "The target path contains a NUL byte." };
  const tooLong = pathLengthProblem(input);
  if (tooLong !== undefined) return { ok: false, message: tooLong };
  const raw = input.startsWith("/") ? input : `${outputDir}/${input}`;
  const parts = raw.split("/").slice(1);
  const out: string[] = [];
  for (const [i, part] of parts.entries()) {
    if (part === "" && i === parts.length - 1) return { ok: false, message: "The target path ends with /." };
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length === 0) return { ok: false, message: "The target path escapes the file system root." };
      out.pop();
      continue;
    }
    if (sanitizeSegment(part, true) !== part.normalize("NFC")) {
      return { ok: false, message: `The target path has an illegal segment: ${JSON.stringify(part)}` };
    }
    out.push(part.normalize("NFC"));
  }
  if (out.length === 0) return { ok: false, message: "The target path is empty." };
  const path = `/${out.join("/")}`;
  const resolvedTooLong = pathLengthProblem(path);
  return resolvedTooLong === undefined ? { ok: true, path } : { ok: false, message: resolvedTooLong };
}
