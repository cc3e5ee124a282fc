import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What running a package README's first TypeScript example printed, and what its comments promise. */
export interface ReadmeExampleRun {
  /** The example's code, as the README shows it. */
  code: string;
  /** `// …` comments closing `console.log(...);` lines, in order: what the example says it prints. */
  expected: string[];
  /** The lines it printed on stdout. */
  printed: string[];
}

/**
 * Extracts the first ```ts block of `<packageDir>/README.md` and runs it verbatim with tsx, from the
 * package folder (so the package's own name resolves to its sources and relative paths to its files).
 * Throws when the README has no example or the example exits non-zero.
 */
export function runReadmeExample(packageDir: string): ReadmeExampleRun {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (code === undefined) throw new Error(`${packageDir}/README.md has no \`\`\`ts example`);
  const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].flatMap((m) => m[1] ?? []);
  // Inside the package folder so the package's name resolves to this package (self-reference).
  const file = join(mkdtempSync(join(packageDir, "node_modules", ".readme-")), "example.ts");
  writeFileSync(file, code);
  const tsx = join(packageDir, "..", "..", "node_modules", ".bin", "tsx");
  const out = execFileSync(tsx, ["--conditions=@vetted/source", file], { cwd: packageDir, encoding: "utf8" });
  return { code, expected, printed: out.trim().split("\n") };
}
