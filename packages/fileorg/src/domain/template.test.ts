import { describe, expect, it } from "vitest";
import {
  parseTemplate,
  renderTemplate,
  resolveTargetPath,
  sanitizeSegment,
  type TemplateContext,
  withSuffix,
} from "./template.js";

const ctx = {
  category: "documents",
  mtime: Date.UTC(2021, 2, 4),
  fileName: "Report.final.PDF",
  sha256: "abcdef0123456789",
};

function render(source: string, over: Partial<TemplateContext> = {}) {
  const parsed = parseTemplate(source);
  if (!parsed.ok) throw new Error(parsed.message);
  return renderTemplate(parsed.template, { ...ctx, ...over });
}

describe("naming templates", () => {
  it("renders the default template from category, UTC year, name and extension", () => {
    expect(render("{category}/{yyyy}/{name}{ext}")).toBe("documents/2021/Report.final.PDF");
  });

  it("renders month, day and the first 8 hex of the hash", () => {
    expect(render("{yyyy}-{mm}-{dd}/{hash8}-{name}{ext}")).toBe("2021-03-04/abcdef01-Report.final.PDF");
  });

  it("refuses unknown tokens, absolute templates and .. segments", () => {
    expect(parseTemplate("{category}/{nope}{ext}").ok).toBe(false);
    expect(parseTemplate("/etc/{name}").ok).toBe(false);
    expect(parseTemplate("../{name}").ok).toBe(false);
    expect(parseTemplate("{category}//{name}").ok).toBe(false);
    expect(parseTemplate("{category}").ok).toBe(false);
  });

  it("never produces an empty, dot-dot or illegal segment from hostile file names", () => {
    expect(render("{category}/{name}{ext}", { category: "" })).toBe("_/Report.final.PDF");
    expect(render("x/{name}{ext}", { fileName: "..." })).toBe("x/_");
    expect(render("x/{name}{ext}", { fileName: "a:b*c?.txt" })).toBe("x/a_b_c_.txt");
    expect(render("x/{name}{ext}", { fileName: "CON.txt" })).toBe("x/_CON.txt");
    const hostile = render("{name}/{name}{ext}", { fileName: "../../etc/passwd" }).split("/");
    expect(hostile).toHaveLength(2);
    expect(hostile.every((s) => s !== ".." && s !== "." && s !== "")).toBe(true);
  });

  it("truncates a long name to 255 bytes and keeps the extension", () => {
    const long = `${"é".repeat(300)}.jpeg`;
    const seg = sanitizeSegment(long, true);
    expect(Buffer.byteLength(seg)).toBeLessThanOrEqual(255);
    expect(seg.endsWith(".jpeg")).toBe(true);
  });

  it("suffixes names with (n) before the extension", () => {
    expect(withSuffix("/out/a/b.txt", 2)).toBe("/out/a/b (2).txt");
    expect(withSuffix("/out/a/.bashrc", 3)).toBe("/out/a/.bashrc (3)");
  });

  it("resolves edited targets relative to the output directory and refuses escapes", () => {
    expect(resolveTargetPath("/out", "docs/x.txt")).toEqual({ ok: true, path: "/out/docs/x.txt" });
    expect(resolveTargetPath("/out", "/out/a/../b.txt")).toEqual({ ok: true, path: "/out/b.txt" });
    expect(resolveTargetPath("/out", "docs/").ok).toBe(false);
    expect(resolveTargetPath("/out", "docs/a|b").ok).toBe(false);
    expect(resolveTargetPath("/", "/..").ok).toBe(false);
  });
});

describe("folder tokens", () => {
  const at = { sourceRoot: "/in", sourcePath: "/in/work/2024/q1/notes.txt", fileName: "notes.txt" };

  it("{relpath} expands to the file's folders below the source root, none at the root", () => {
    expect(render("{category}/{relpath}/{name}{ext}", at)).toBe("documents/work/2024/q1/notes.txt");
    expect(render("{category}/{relpath}/{name}{ext}", { ...at, sourcePath: "/in/notes.txt" })).toBe(
      "documents/notes.txt",
    );
  });

  it("{parent} is the name of the file's folder", () => {
    expect(render("{parent}/{name}{ext}", at)).toBe("q1/notes.txt");
    expect(render("{parent}/{name}{ext}", { ...at, sourcePath: "/in/notes.txt" })).toBe("in/notes.txt");
  });

  it("makes each folder of {relpath} a legal segment", () => {
    const hostile = { ...at, sourcePath: "/in/a:b/CON/notes.txt" };
    expect(render("{relpath}/{name}{ext}", hostile)).toBe("a_b/_CON/notes.txt");
  });

  it("refuses {relpath} mixed into a segment", () => {
    expect(parseTemplate("x-{relpath}/{name}{ext}").ok).toBe(false);
  });

  it("takes {yyyy} {mm} {dd} from the content date when there is one", () => {
    expect(render("{yyyy}-{mm}-{dd}/{name}{ext}", { date: Date.UTC(2019, 6, 14) })).toBe(
      "2019-07-14/Report.final.PDF",
    );
  });
});
