// Runs a benchmark against the built package, as a consumer runs it: `tsx bench/built.ts fileorg [args…]`.
//
// The bench imports `@vetted/fileorg` (its `dist/`, not the sources) and is itself compiled to plain
// JavaScript, then started with `node` alone: no tsx loader in the measured process nor in its file threads
// (under tsx each of them carries a loader and a transformer: about 100 MB of RSS with two file threads,
// and CPU at every module load). This launcher builds the store and fileorg first when a source is newer
// than their `dist/`, so a bench never measures stale code.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "tsup";
import { buildsAreFresh } from "../../../tools/fresh-dist.js";

const BUILDS = [
  { dir: "packages/store", entry: "dist/index.js" },
  { dir: "packages/fileorg", entry: "dist/index.js" },
];

function run(command: string, args: readonly string[]): number {
  const done = spawnSync(command, args, { stdio: "inherit" });
  return done.status ?? 1;
}

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2).filter((a) => a !== "--");
  if (name === undefined) throw new Error("usage: tsx bench/built.ts <bench name> [args…]");
  if (!buildsAreFresh(BUILDS)) {
    console.log("the store's or fileorg's dist/ is older than its sources: building them first");
    if (run("pnpm", ["--filter", "@vetted/fileorg...", "build"]) !== 0) return 1;
  }
  // Inside the package (ignored by git), so `@vetted/fileorg` and its dependencies resolve as installed here.
  const out = mkdtempSync(join(import.meta.dirname, "..", ".tmp-bench-"));
  try {
    await build({
      entry: { [name]: join(import.meta.dirname, `${name}.ts`) },
      outDir: out,
      format: ["esm"],
      target: "node20",
      platform: "node",
      config: false,
      silent: true,
      // Only the bench itself is compiled: the package (by its own name, so its `dist/`) and every
      // dependency are imported as they are installed.
      external: [/^[^./]/],
    });
    const bench = join(out, `${name}.js`);
    return run(process.execPath, [bench, ...args]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
