/**
 * What a consumer pays for each published package: packs it (and the workspace packages it depends on)
 * with pnpm, installs the tarballs with plain npm in a fresh folder, and prints the install size, the
 * number of installed packages, and the cold import time of the package's main entry (median of five
 * fresh processes). Run after `pnpm build`: `pnpm footprint` (or `tsx tools/footprint.ts runs store`).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const ALL = ["store", "comparison", "fileorg", "runs"];

function manifest(dir: string): { name: string; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
}

/** The workspace packages `dir` needs, itself last. */
function withWorkspaceDeps(dir: string, seen = new Set<string>()): string[] {
  if (seen.has(dir)) return [];
  seen.add(dir);
  const deps = Object.keys(manifest(dir).dependencies ?? {}).filter((d) => d.startsWith("@vetted/"));
  return [...deps.flatMap((d) => withWorkspaceDeps(d.slice("@vetted/".length), seen)), dir];
}

function duBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isSymbolicLink()) continue;
    total += entry.isDirectory() ? duBytes(p) : statSync(p).size;
  }
  return total;
}

/** The median of five fresh processes' time to `import(specifier)` from `folder`, in ms. */
function importMs(folder: string, specifier: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  const times = Array.from({ length: 5 }, () =>
    Number(execFileSync("node", ["--input-type=module", "-e", script], { cwd: folder, encoding: "utf8" })),
  ).sort((a, b) => a - b);
  return times[2] ?? 0;
}

function measure(dir: string): string {
  const folder = mkdtempSync(join(tmpdir(), `vetted-footprint-${dir}-`));
  try {
    const tarballs = withWorkspaceDeps(dir).map((d) => {
      const out = execFileSync("pnpm", ["pack", "--pack-destination", folder], {
        cwd: join(root, "packages", d),
        encoding: "utf8",
      });
      return out.trim().split("\n").at(-1) ?? "";
    });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], {
      cwd: folder,
      stdio: "ignore",
    });
    const modules = join(folder, "node_modules");
    const lock = JSON.parse(readFileSync(join(modules, ".package-lock.json"), "utf8")) as {
      packages: Record<string, unknown>;
    };
    const count = Object.keys(lock.packages).length;
    const name = manifest(dir).name;
    const mb = (duBytes(modules) / 1e6).toFixed(1);
    const line = `${name.padEnd(20)} ${`${mb} MB`.padStart(9)} ${String(count).padStart(5)} packages   import ${importMs(folder, name).toFixed(0)} ms (median of 5)`;
    // The machine is shared: the same measure of zod alone (when installed), in the same folder and minute.
    const floor = lock.packages["node_modules/zod"]
      ? `   [zod alone ${importMs(folder, "zod").toFixed(0)} ms]`
      : "";
    return line + floor;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

for (const dir of process.argv.length > 2 ? process.argv.slice(2) : ALL) console.log(measure(dir));
