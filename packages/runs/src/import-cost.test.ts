/**
 * What `import "@vetted/runs"` loads, as a consumer who installed the built package gets it: Node 20 pays
 * for every module file it resolves and reads (zod's ~95 and drizzle-orm's ~105 files were most of the
 * import time), for starting its CommonJS loader on the first CommonJS module, and for every zod schema
 * the loaded code builds (a lane's schemas are built only by its own entry). The entries are built here the
 * way `pnpm build` builds them (this package's tsup config, JavaScript only, into a scratch folder inside
 * the package so their imports resolve as in an install), then the main one is imported in a fresh process
 * that records every module it resolves.
 *
 * The speed itself is measured by `pnpm footprint runs`, not by a timed test on a shared machine.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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
const { createRequire } = await import("node:module");
const commonJs = Object.keys(createRequire(import.meta.url).cache).map((p) => "commonjs:" + p);
console.log([...[...urls].filter((u) => u.startsWith("file:")), ...commonJs].join("\\n"));
`;

/** The lanes `createRunsEngine` composes (so the main entry carries them); every other lane is its own entry. */
const COMPOSED_LANES = ["embeddings", "inbound-sms", "webhooks"];
/** The pure domain modules only a lane that is not composed uses: each builds that lane's schemas. */
const LANE_ONLY_DOMAIN = [
  "src/domain/automation.ts",
  "src/domain/computer-use.ts",
  "src/domain/proof/",
  "src/domain/reconstruction/",
  "src/domain/recording.ts",
  "src/domain/session.ts",
  "src/domain/telemetry.ts",
  "src/domain/tower-draft.ts",
];

let scratch = "";
let loaded: string[] = [];
/** The source files bundled into the main entry and the chunks it imports statically. */
let mainSources: string[] = [];

interface Metafile {
  outputs: Record<string, { imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>;
}

/** The inputs of `entry`'s output and of every chunk it imports statically, from esbuild's metafile. */
function staticSources(meta: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const queue = Object.keys(meta.outputs).filter((out) => out.endsWith(`/${entry}`));
  for (let out = queue.pop(); out !== undefined; out = queue.pop()) {
    if (seen.has(out)) continue;
    seen.add(out);
    for (const i of meta.outputs[out]?.imports ?? []) if (i.kind === "import-statement") queue.push(i.path);
  }
  return [...seen].flatMap((out) => Object.keys(meta.outputs[out]?.inputs ?? {}));
}

beforeAll(async () => {
  scratch = mkdtempSync(join(root, ".tmp-import-cost-"));
  const options = config as Options;
  await build({
    ...options,
    config: false,
    outDir: scratch,
    dts: false,
    sourcemap: false,
    clean: false,
    silent: true,
    metafile: true,
  });
  const meta = JSON.parse(readFileSync(join(scratch, "metafile-esm.json"), "utf8")) as Metafile;
  mainSources = staticSources(meta, "index.js").filter((input) => !input.includes("node_modules"));
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
    // The main entry, the chunks it shares with the lane entries, @vetted/store (its sources, here) and re2js.
    expect(loaded.filter((line) => line.startsWith("file:")).length).toBeLessThanOrEqual(50);
  });

  it("loads no CommonJS module (the first one starts Node's CommonJS loader and lexer)", () => {
    // tsx, which runs the probe so that @vetted/store resolves to its sources, is CommonJS itself.
    const harness = ["/node_modules/tsx/", "/node_modules/esbuild/"];
    const commonJs = loaded.filter(
      (line) => line.startsWith("commonjs:") && !harness.some((h) => line.includes(h)),
    );
    expect(commonJs).toEqual([]);
    expect(fromPackage("ipaddr.js")).toEqual([]);
  });

  it("carries only the lanes the engine composes; every other lane's code and schemas stay in its entry", () => {
    expect(mainSources.some((input) => input.startsWith("src/core/"))).toBe(true);
    const lanes = mainSources.filter((input) => input.startsWith("src/lanes/"));
    expect(
      lanes.filter((input) => !COMPOSED_LANES.some((lane) => input.startsWith(`src/lanes/${lane}/`))),
    ).toEqual([]);
    expect(mainSources.filter((input) => LANE_ONLY_DOMAIN.some((part) => input.startsWith(part)))).toEqual(
      [],
    );
  });
});
