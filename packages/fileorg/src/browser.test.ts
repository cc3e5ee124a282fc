import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = dirname(fileURLToPath(import.meta.url));
/** Node globals a browser does not have. */
const NODE_GLOBALS = new Set([
  "Buffer",
  "process",
  "require",
  "__dirname",
  "__filename",
  "global",
  "setImmediate",
]);

/** The specifiers `file` imports at run time (type-only imports and exports are erased, so skipped). */
function runtimeImports(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.every((e) => e.isTypeOnly)));
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const onlyTypes =
        node.isTypeOnly ||
        (clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require"))
    ) {
      const arg = node.arguments[0];
      out.push(arg !== undefined && ts.isStringLiteral(arg) ? arg.text : "<dynamic>");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Free uses of Node globals (`Buffer.byteLength`, `process.env`…), property names excepted. */
function nodeGlobals(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text)) {
      const parent = node.parent;
      const isPropertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isPropertySignature(parent) && parent.name === node);
      if (!isPropertyName) out.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Walks the run-time import graph from `entry`: the files reached, and every import that leaves `src/`. */
function walk(entry: string): { files: string[]; problems: string[] } {
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = [resolve(SRC, entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const name = relative(SRC, file);
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
    for (const global of nodeGlobals(source)) problems.push(`${name} uses the Node global ${global}`);
    for (const specifier of runtimeImports(source)) {
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
        problems.push(`${name} imports ${specifier}`);
        continue;
      }
      const target = resolve(dirname(file), specifier.replace(/\.js$/, ".ts"));
      if (relative(SRC, target).startsWith("..")) problems.push(`${name} imports ${specifier}, outside src/`);
      else queue.push(target);
    }
  }
  return { files: [...seen].map((f) => relative(SRC, f)).sort(), problems };
}

describe("@vetted/fileorg/browser", () => {
  it("reaches only this package's pure modules: no node: import, no package, no Node global", () => {
    const { files, problems } = walk("browser.ts");
    expect(problems).toEqual([]);
    expect(files).toEqual([
      "browser.ts",
      "domain/naming-template.ts",
      "domain/path-limits.ts",
      "domain/posix-path.ts",
      "domain/preview-kind.ts",
      "domain/reason-labels.ts",
    ]);
  });

  it("the walk does catch what would break a browser (node:path, zod, drizzle, Buffer)", () => {
    expect(walk("engine/apply/confinement.ts").problems).toContain(
      "engine/apply/confinement.ts imports node:path",
    );
    expect(walk("domain/manifest.ts").problems).toContain("domain/manifest.ts imports zod");
    expect(walk("store/schema.ts").problems.some((p) => p.includes("drizzle-orm"))).toBe(true);
    expect(walk("engine/plan-hash.ts").problems).toContain("engine/plan-hash.ts imports node:crypto");
    const code = "const n = Buffer.byteLength(s); const o = { process: 1 }; o.process; await import(name);";
    const source = ts.createSourceFile("x.ts", code, ts.ScriptTarget.ES2022, true);
    expect(nodeGlobals(source)).toEqual(["Buffer"]);
    expect(runtimeImports(source)).toEqual(["<dynamic>"]);
  });

  it("exports the very values of @vetted/fileorg, not copies", async () => {
    const browser: Record<string, unknown> = await import("./browser.js");
    const main: Record<string, unknown> = await import("./index.js");
    const names = Object.keys(browser);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(main[name], name).toBe(browser[name]);
  });
});
