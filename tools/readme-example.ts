import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** How long an example may run before it counts as failed (a default well under a test's own timeout). */
export const README_EXAMPLE_TIMEOUT_MS = 50_000;

/** The first ```ts block of `<packageDir>/README.md` and the `// …` comments promising what it prints. */
export function readReadmeExample(packageDir: string): Pick<ReadmeExampleRun, "code" | "expected"> {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (code === undefined) throw new Error(`${packageDir}/README.md has no \`\`\`ts example`);
  const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].flatMap((m) => m[1] ?? []);
  return { code, expected };
}

/**
 * Extracts the first ```ts block of `<packageDir>/README.md` and runs it verbatim with tsx, from the
 * package folder (so the package's own name resolves to its sources and relative paths to its files).
 * Throws when the README has no example, or the example exits non-zero or outlives `timeoutMs`.
 */
export function runReadmeExample(
  packageDir: string,
  timeoutMs: number = README_EXAMPLE_TIMEOUT_MS,
): ReadmeExampleRun {
  const { code, expected } = readReadmeExample(packageDir);
  // In a temp folder inside the package's own scope (not under node_modules, where Node sees no package
  // scope): the package's name resolves to this package by self-reference, its dependencies resolve, and
  // the `.mts` file is an ES module (top-level await). Removed afterwards, pass or fail.
  const folder = mkdtempSync(join(packageDir, ".readme-"));
  try {
    const file = join(folder, "example.mts");
    writeFileSync(file, code);
    const tsx = join(packageDir, "..", "..", "node_modules", ".bin", "tsx");
    const out = execFileSync(tsx, ["--conditions=@vetted/source", file], {
      cwd: packageDir,
      encoding: "utf8",
      timeout: timeoutMs,
    });
    return { code, expected, printed: out.trim().split("\n") };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
