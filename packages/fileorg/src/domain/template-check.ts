import { RELPATH_WHOLE_SEGMENT, TEMPLATE_TOKENS, type TemplateToken } from "./template.js";

/** One problem with a naming template, naming the offending part. */
export interface TemplateIssue {
  /** The exact part of the template at fault (a token, a segment, or the whole template). */
  part: string;
  message: string;
}

/** The values a template is rendered with (`{ext}` includes its dot). */
type TemplateValues = Record<TemplateToken, string>;

const TOKEN_SET: ReadonlySet<string> = new Set(TEMPLATE_TOKENS);
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
const ILLEGAL_CHARS = /[<>:"|?*\\\u0000-\u001f]/;
const RESERVED_NAMES = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
const SAMPLE: TemplateValues = {
  category: "documents",
  yyyy: "2024",
  mm: "03",
  dd: "09",
  name: "sample",
  ext: ".pdf",
  hash8: "0a1b2c3d",
  parent: "Downloads",
  relpath: "projects/2024",
  camera_make: "Canon",
  camera_model: "EOS 80D",
  artist: "Artist",
  album: "Album",
  track: "01",
  title: "Title",
  unit: "Project",
};

/** Splits a template into literal text and `{token}` parts; unbalanced braces become issues. */
function tokenize(template: string): {
  parts: Array<{ token: string } | { text: string }>;
  issues: TemplateIssue[];
} {
  const parts: Array<{ token: string } | { text: string }> = [];
  const issues: TemplateIssue[] = [];
  let i = 0;
  let text = "";
  while (i < template.length) {
    const ch = template[i];
    if (ch === "{") {
      const end = template.indexOf("}", i + 1);
      const nextOpen = template.indexOf("{", i + 1);
      if (end === -1 || (nextOpen !== -1 && nextOpen < end)) {
        issues.push({ part: template.slice(i, end === -1 ? undefined : end + 1), message: "unclosed `{`" });
        return { parts, issues };
      }
      if (text !== "") parts.push({ text });
      text = "";
      parts.push({ token: template.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (ch === "}") {
      issues.push({ part: "}", message: "`}` without a matching `{`" });
      return { parts, issues };
    }
    text += ch;
    i += 1;
  }
  if (text !== "") parts.push({ text });
  return { parts, issues };
}

/** Renders a template with the given values; unknown tokens are left as written (check first). */
export function renderTemplateText(template: string, values: TemplateValues): string {
  const { parts } = tokenize(template);
  return parts
    .map((p) =>
      "token" in p ? (TOKEN_SET.has(p.token) ? values[p.token as TemplateToken] : `{${p.token}}`) : p.text,
    )
    .join("");
}

/** Problems with one rendered relative path: absolute, `..`, empty or illegal segments. */
export function checkRelativePath(path: string): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  if (path.startsWith("/") || /^[a-z]:/i.test(path)) {
    issues.push({ part: path, message: "the result must be a relative path inside the output root" });
    return issues;
  }
  const segments = path.split("/");
  segments.forEach((segment, index) => {
    if (segment === "") {
      issues.push({
        part: index === segments.length - 1 ? "/" : "//",
        message: "the result has an empty path segment",
      });
    } else if (segment === "." || segment === "..") {
      issues.push({ part: segment, message: "`.` and `..` segments could leave the output root" });
    } else if (ILLEGAL_CHARS.test(segment)) {
      issues.push({
        part: segment,
        message: 'segments may not contain < > : " | ? * \\ or control characters',
      });
    } else if (RESERVED_NAMES.test(segment)) {
      issues.push({ part: segment, message: "this segment is a reserved device name on Windows" });
    } else if (/[ .]$/.test(segment)) {
      issues.push({ part: segment, message: "segments may not end with a space or a dot" });
    }
  });
  return issues;
}

/**
 * Checks a naming template at save time: every token must be known, the literal text must be safe, and the
 * rendered result must be a relative path of non-empty, legal segments whose file name varies per file.
 * Returns the issues, each naming the offending part; an empty list means the template is valid.
 */
export function checkNamingTemplate(template: string): TemplateIssue[] {
  if (template.trim() === "") return [{ part: template, message: "the template is empty" }];
  const { parts, issues } = tokenize(template);
  if (issues.length > 0) return issues;
  for (const p of parts) {
    if ("token" in p && !TOKEN_SET.has(p.token)) {
      issues.push({
        part: `{${p.token}}`,
        message: `unknown token; use one of ${TEMPLATE_TOKENS.map((t) => `{${t}}`).join(" ")}`,
      });
    }
  }
  if (issues.length > 0) return issues;
  for (const segment of template.split("/")) {
    if (segment.includes("{relpath}") && segment !== "{relpath}") {
      issues.push({ part: segment, message: RELPATH_WHOLE_SEGMENT });
    }
  }
  if (issues.length > 0) return issues;
  const last = template.split("/").at(-1) ?? "";
  if (!last.includes("{name}") && !last.includes("{hash8}") && !last.includes("{title}")) {
    issues.push({
      part: last || template,
      message:
        "the file name part must contain {name} or {hash8} (or {title}), or every file would get the same name",
    });
  }
  issues.push(...checkRelativePath(renderTemplateText(template, SAMPLE)));
  return issues;
}
