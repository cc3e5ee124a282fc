import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** What a spawned `vetted-comparison` process did. */
export interface BinOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Bundles the real `vetted-comparison` bin from source into `dir/bin/vetted-comparison.mjs` (workspace
 * packages resolve to their sources, so no build is needed) and answers its path.
 */
export async function buildBin(dir: string): Promise<string> {
  const outfile = join(dir, "bin", "vetted-comparison.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("../cli.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // jsonc-parser's UMD build requires its modules dynamically; bundle its ESM build instead.
    conditions: ["@vetted/source"],
    mainFields: ["module", "main"],
    // Bundled CommonJS dependencies require Node built-ins; give the ESM bundle a `require` for them.
    banner: {
      js: 'import { createRequire as createBundleRequire } from "node:module"; const require = createBundleRequire(import.meta.url);',
    },
    outfile,
    logLevel: "silent",
  });
  return outfile;
}

/** Options of {@link runBin}. */
export interface RunBinOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Text piped into standard input (closed right after); without it stdin is /dev/null. */
  readonly stdin?: string;
}

/** Runs the bundled bin as a real process in `cwd`, with a clean environment (no GITHUB_ACTIONS). */
export function runBin(
  bin: string,
  args: readonly string[],
  cwd: string,
  options: RunBinOptions = {},
): Promise<BinOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", GITHUB_ACTIONS: "", ...options.env },
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  });
}
