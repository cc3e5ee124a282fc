/**
 * Type-checks a tiny consumer of the built declarations of @vetted/store, @vetted/comparison,
 * @vetted/fileorg, @vetted/runs and @vetted/cli as a project outside the workspace would: `skipLibCheck: false`, strict, once with
 * `module: nodenext` and once with `moduleResolution: bundler`. The packages are linked into a temp
 * `node_modules` (their own dependencies resolve from their folders, as after an install). Build first
 * (`pnpm --filter @vetted/cli... --filter @vetted/runs build`), or pass `--build` (builds unless current).
 *
 * Prints the errors and exits 1 when there are any. Usage: tsx tools/check-public-types.ts [--build]
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildsAreFresh } from "./fresh-dist.js";

const root = join(import.meta.dirname, "..");
const PACKAGES = ["store", "comparison", "fileorg", "runs", "cli"];
/** The declarations checked here, and the builds they come from. */
const DECLARATIONS = PACKAGES.map((name) => ({ dir: `packages/${name}`, entry: "dist/index.d.ts" }));

const CONSUMER = `import { runVetted, type CliIo } from "@vetted/cli";
import { validateText } from "@vetted/comparison";
import * as fileorg from "@vetted/fileorg";
import * as runs from "@vetted/runs";
import { createLocalEmbedder } from "@vetted/runs/embeddings";
import { createTowerEngine, type TowerEngine } from "@vetted/runs/tower";
import { runTransaction } from "@vetted/store";
import { openDatabase } from "@vetted/store/database";

const { db, close } = await openDatabase({ url: "file:consumer.db" });
await runs.migrate(db);
await fileorg.migrate(db);
const answer: number = await runTransaction(db, async () => 42);
const io: CliIo = { cwd: ".", env: {}, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
const code: number = await runVetted(["--version"], io);
const checked: boolean = validateText("{}", "comparison.json").ok;
const tower: TowerEngine = createTowerEngine({ db, runs: runs.createRunsEngine({ db, secretsKey: Buffer.alloc(32) }) });
console.log(answer, code, checked, typeof tower, typeof createLocalEmbedder);
close();
`;

/** The errors of one consumer configuration (tsc's output), empty when it type-checks. */
async function check(dir: string, name: string, options: Record<string, string>): Promise<string> {
  const config = join(dir, `tsconfig.${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        strict: true,
        skipLibCheck: false,
        // TypeScript's own lib files (lib.dom.d.ts alone is 9 s of checking) are not what is tested here.
        skipDefaultLibCheck: true,
        noEmit: true,
        types: ["node"],
        ...options,
      },
      files: ["index.ts"],
    }),
  );
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const child = spawn(process.execPath, [tsc, "-p", config], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const [code] = (await once(child, "close")) as [number | null];
  return code === 0 ? "" : output || `tsc exited with ${code}`;
}

/**
 * Writes the consumer (`index.ts`, an ES module) into `dir`, whose `node_modules` holds the packages and
 * `@types/node`, and checks every configuration (at once: two tsc processes, the repository's TypeScript);
 * answers the errors per configuration (none: all type-check). Both keep TypeScript's default libs:
 * playwright-core's declarations, which the browser steps' types name, need the DOM ones.
 */
export async function typeCheckConsumer(dir: string): Promise<Record<"nodenext" | "bundler", string>> {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  writeFileSync(join(dir, "index.ts"), CONSUMER);
  const [nodenext, bundler] = await Promise.all([
    check(dir, "nodenext", { module: "nodenext", moduleResolution: "nodenext" }),
    check(dir, "bundler", { module: "esnext", moduleResolution: "bundler" }),
  ]);
  return { nodenext, bundler };
}

/** {@link typeCheckConsumer} over the workspace's packages, linked into a temp `node_modules`. */
export async function checkPublicTypes(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), "vetted-types-consumer-"));
  try {
    mkdirSync(join(dir, "node_modules", "@vetted"), { recursive: true });
    mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
    for (const name of PACKAGES)
      symlinkSync(join(root, "packages", name), join(dir, "node_modules", "@vetted", name), "dir");
    symlinkSync(
      realpathSync(join(root, "node_modules", "@types", "node")),
      join(dir, "node_modules", "@types", "node"),
      "dir",
    );
    return await typeCheckConsumer(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  // CI has built every package before the tests run (turbo.json); a checkout with edits builds again.
  if (process.argv.includes("--build") && !buildsAreFresh(DECLARATIONS)) {
    const filters = ["--filter=@vetted/cli...", "--filter=@vetted/runs..."];
    execFileSync(join(root, "node_modules", ".bin", "turbo"), ["run", "build", ...filters], {
      cwd: root,
      stdio: "inherit",
    });
  }
  const results = await checkPublicTypes();
  let failed = false;
  for (const [name, errors] of Object.entries(results)) {
    const count = (errors.match(/error TS/g) ?? []).length;
    process.stdout.write(`${name}: ${count} errors\n${errors}`);
    failed ||= errors !== "";
  }
  process.exitCode = failed ? 1 : 0;
}
