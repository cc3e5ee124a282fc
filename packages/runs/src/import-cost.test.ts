/**
 * What `import "@vetted/runs"` loads, as a consumer who installed the built package gets it: Node 20 pays
 * for every module file it resolves and reads, and those files were most of the import time (zod's ~95
 * and drizzle-orm's ~105 of ~220). The main entry is built here the way `pnpm build` builds it (this
 * package's tsup config, JavaScript only, into a scratch folder inside the package so its imports resolve
 * as in an install), then imported in a fresh process that records every module it resolves.
 *
 * The speed itself is measured by `pnpm footprint runs`, not by a timed test on a shared machine.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Options } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import config from "../tsup.config.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsx = join(root, "..", "..", "node_modules", ".bin", "tsx");

/** Prints every module URL the import resolves, one a line, after importing `entry`. */
const RECORD = `
import { register } from "node:module";
const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on("message", (url) => urls.add(url));
port1.unref();
const hook = "let port; export function initialize(d) { port = d.port; }" +
  " export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }";
register("data:text/javascript," + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
await import(process.env.ENTRY);
await new Promise((r) => setTimeout(r, 100));
console.log([...urls].filter((u) => u.startsWith("file:")).join("\\n"));
`;

let scratch = "";
let loaded: string[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(root, ".tmp-import-cost-"));
  const options = config as Options;
  await build({
    ...options,
    config: false,
    entry: { index: "src/index.ts" },
    outDir: scratch,
    dts: false,
    sourcemap: false,
    clean: false,
    silent: true,
  });
  const entry = pathToFileURL(join(scratch, "index.js")).href;
  const out = execFileSync(tsx, ["--conditions=@vetted/source", "--input-type=module", "--eval", RECORD], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, ENTRY: entry },
    timeout: 60_000,
  });
  loaded = out.trim().split("\n");
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The loaded files of one installed package, by its folder under node_modules. */
function fromPackage(name: string): string[] {
  return loaded.filter((url) => url.includes(`/node_modules/${name}/`));
}

describe('import "@vetted/runs" (the built main entry)', () => {
  it("loads zod and drizzle-orm from its own bundle, not file by file", () => {
    expect(loaded.some((url) => url.startsWith(pathToFileURL(scratch).href))).toBe(true);
    expect(fromPackage("zod")).toEqual([]);
    expect(fromPackage("drizzle-orm")).toEqual([]);
  });

  it("loads no lane-only dependency: no browser driver, HTTP client, HTML parser or local model", () => {
    for (const name of ["playwright-core", "undici", "parse5", "wink-nlp", "wink-eng-lite-web-model"]) {
      expect(fromPackage(name), name).toEqual([]);
    }
  });

  it("loads a few dozen module files at most (about 220 before zod and drizzle-orm were bundled)", () => {
    expect(loaded.length).toBeLessThanOrEqual(40);
  });
});
