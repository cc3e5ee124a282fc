import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildsAreFresh } from "../../../tools/fresh-dist.js";
import { readReadmeExample } from "../../../tools/readme-example.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = join(packageDir, "..", "..");
const storeDir = join(repoRoot, "packages", "store");

/** Whether the npm registry answers: the one reason this test may skip (it installs zod and friends). */
function registryReachable(): boolean {
  try {
    execFileSync("npm", ["ping"], { stdio: "ignore", timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

const online = registryReachable();

// What a consumer gets: the tarball `pnpm pack` makes (what `pnpm publish` uploads), installed by plain
// npm in a folder outside the workspace, so nothing resolves to the workspace's sources or node_modules.
// `@vetted/store` is packed alongside because it is not on the registry yet; the rest comes from npm.
describe("the packed @vetted/comparison, installed with npm outside the workspace", () => {
  const work = mkdtempSync(join(tmpdir(), "vetted-packed-"));
  const tarballs = join(work, "tarballs");
  const consumer = join(work, "consumer");

  beforeAll(() => {
    if (!online) return;
    // pack ships `dist`, so build it (and @vetted/store's) first, unless CI has (turbo.json builds first:
    // rebuilding would empty `dist` under the other suites' child processes).
    const builds = ["store", "comparison"].map((name) => ({
      dir: `packages/${name}`,
      entry: "dist/index.d.ts",
    }));
    if (!buildsAreFresh(builds))
      execFileSync("pnpm", ["--filter", "@vetted/comparison...", "build"], { cwd: repoRoot, stdio: "pipe" });
    for (const dir of [storeDir, packageDir]) {
      execFileSync("pnpm", ["pack", "--pack-destination", tarballs], { cwd: dir, stdio: "pipe" });
    }
    mkdirSync(consumer);
    writeFileSync(join(consumer, "package.json"), '{ "name": "consumer", "private": true }\n');
    const files = readdirSync(tarballs).map((name) => join(tarballs, name));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...files], {
      cwd: consumer,
      stdio: "pipe",
      timeout: 110_000,
    });
  }, 240_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("runs the README's TypeScript example verbatim and prints what its comments say", (context) => {
    if (!online)
      context.skip("npm registry unreachable (`npm ping` failed): cannot install the packed tarball");
    const { code, expected } = readReadmeExample(packageDir);
    const file = join(consumer, "example.mts");
    writeFileSync(file, code);
    const tsx = join(repoRoot, "node_modules", ".bin", "tsx");
    const out = execFileSync(tsx, [file], { cwd: consumer, encoding: "utf8", timeout: 60_000 });
    expect(expected.length).toBeGreaterThan(0);
    expect(out.trim().split("\n")).toEqual(expected);
  }, 120_000);

  it("links the vetted-comparison bin, which checks the shipped example document", (context) => {
    if (!online)
      context.skip("npm registry unreachable (`npm ping` failed): cannot install the packed tarball");
    const bin = join(consumer, "node_modules", ".bin", "vetted-comparison");
    const example = join("node_modules", "@vetted", "comparison", "examples", "comparison.json");
    const out = execFileSync(bin, ["check", example, "--curated", "audience"], {
      cwd: consumer,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(out).toBe("0 errors, 0 warnings in 1 file (1 clean)\n");
  }, 120_000);
});
