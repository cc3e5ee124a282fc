/**
 * Whether the workspace's builds are current, so tests may start a child process (the server, the CLI) from
 * `dist/` (node alone, about twice as fast as through tsx) instead of from the sources through tsx.
 *
 * A package's build is current when its entry file in `dist/` is newer than every file it was built from
 * (`src/`, `package.json`, `tsup.config.ts`). CI builds before it tests (turbo.json), so its children run
 * built; after an edit the sources are newer and tests fall back to tsx until the next build. Set
 * `VETTED_TEST_FROM=source` to always run the sources.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** A workspace folder (e.g. `packages/runs`) and the build output whose age stands for its whole build. */
export interface BuiltPackage {
  dir: string;
  entry: string;
}

/** The newest modification time of a file under `path` (a file or a folder), in ms; 0 when absent. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    latest = Math.max(latest, newest(join(path, entry.name)));
  }
  return latest;
}

/** True when every package's `entry` exists and is newer than its sources. */
export function buildsAreFresh(packages: readonly BuiltPackage[]): boolean {
  if (process.env.VETTED_TEST_FROM === "source") return false;
  return packages.every(({ dir, entry }) => {
    const output = join(ROOT, dir, entry);
    if (!existsSync(output)) return false;
    const inputs = ["src", "package.json", "tsup.config.ts"].map((name) => newest(join(ROOT, dir, name)));
    return statSync(output).mtimeMs > Math.max(...inputs);
  });
}

/** The engines the server loads at run time, and the server itself. */
export const SERVER_BUILDS: readonly BuiltPackage[] = [
  { dir: "packages/store", entry: "dist/index.js" },
  { dir: "packages/comparison", entry: "dist/index.js" },
  { dir: "packages/fileorg", entry: "dist/index.js" },
  { dir: "packages/runs", entry: "dist/index.js" },
  { dir: "apps/server", entry: "dist/main.js" },
];

/** What `vetted` loads, including the server its `serve` command starts. */
export const CLI_BUILDS: readonly BuiltPackage[] = [
  ...SERVER_BUILDS,
  { dir: "packages/cli", entry: "dist/bin.js" },
];
