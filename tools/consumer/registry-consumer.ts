/**
 * The consumer test (issue 30): what someone outside the workspace gets from a registry.
 *
 * Starts a throw-away verdaccio on loopback (installed on demand into a cache folder, see verdaccio.ts),
 * publishes every non-private package under packages/ to it (`pnpm pack`, `npm publish`), then, in fresh folders
 * under the system temp directory and at once:
 * - per package: `npm install` exactly as its README's Install section says, then its README's first
 *   ```ts example verbatim (the repository's tsx, no source condition), checking it prints what its
 *   `// …` comments promise (and, for @vetted/comparison, its `vetted-comparison` bin);
 * - `npm install -g @vetted/cli` into a temp prefix, `vetted --help`, organize → apply → undo;
 * - an ESM consumer of every package's main API type-checked with `skipLibCheck: false` under
 *   nodenext and bundler (tools/check-public-types.ts's consumer).
 *
 * Fails (exit 1) naming the package and step; skips (exit 0, loudly) only when `npm ping` fails.
 * Usage: pnpm test:consumer (builds the packages first unless their builds are current).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildsAreFresh } from "../fresh-dist.js";
import {
  exec,
  NPM_INSTALL_FLAGS,
  npmInstall,
  type PublishedPackage,
  pack,
  publish,
  publishedPackages,
  ROOT,
  readmeInstall,
  runComparisonBin,
  runExample,
  runGlobalCli,
  runTypeCheck,
  StepError,
} from "./steps.js";
import { ensureVerdaccio, npmEnv, type Registry, startRegistry, VERDACCIO_VERSION } from "./verdaccio.js";

const FOLDERS = ["store", "comparison", "fileorg", "runs", "cli"];
const started = Date.now();

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

function say(line: string): void {
  process.stdout.write(`[consumer ${seconds(started).padStart(7)}] ${line}\n`);
}

/** Runs one step of one package, printing its start and its time; a failure becomes a {@link StepError}. */
async function step<T>(pkg: string, name: string, work: () => Promise<T>): Promise<T> {
  const since = Date.now();
  say(`${pkg} › ${name} …`);
  try {
    const result = await work();
    say(`${pkg} › ${name} ✓ ${seconds(since)}`);
    return result;
  } catch (error) {
    say(`${pkg} › ${name} ✗ ${seconds(since)}`);
    if (error instanceof StepError) throw error;
    throw new StepError(pkg, name, error instanceof Error ? error.message : String(error));
  }
}

async function registryReachable(): Promise<boolean> {
  try {
    await exec("npm", ["ping", "--registry=https://registry.npmjs.org/"], { cwd: tmpdir(), timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

function buildIfStale(): void {
  const builds = FOLDERS.map((name) => ({ dir: `packages/${name}`, entry: "dist/index.d.ts" }));
  if (buildsAreFresh(builds)) return;
  say("builds are missing or older than the sources: turbo run build --filter=./packages/*");
  execFileSync(
    join(ROOT, "node_modules", ".bin", "turbo"),
    ["run", "build", "--filter=./packages/*", "--output-logs=new-only"],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
}

/** Installs one package in its own folder as its README says and runs the README example there. */
async function readmeConsumer(pkg: PublishedPackage, work: string, registry: Registry): Promise<void> {
  const dir = join(work, `readme-${pkg.name.replace("@vetted/", "")}`);
  const args = await step(pkg.name, "README install command", async () => readmeInstall(pkg, false));
  await step(pkg.name, `npm install ${args.join(" ")}`, () => npmInstall(dir, args, registry));
  await step(pkg.name, "README example", () => runExample(pkg, dir));
  if (pkg.name === "@vetted/comparison")
    await step(pkg.name, "vetted-comparison check <shipped example>", () => runComparisonBin(dir));
}

async function globalCli(packages: readonly PublishedPackage[], work: string, registry: Registry) {
  const cli = packages.find((pkg) => pkg.name === "@vetted/cli");
  if (cli === undefined)
    throw new StepError("@vetted/cli", "global install", "not among the published packages");
  const prefix = join(work, "global");
  const args = await step(cli.name, "README global install command", async () => readmeInstall(cli, true));
  await step(cli.name, `npm install -g --prefix <tmp> ${args.join(" ")}`, () =>
    exec("npm", ["install", "-g", "--prefix", prefix, ...args, ...NPM_INSTALL_FLAGS], {
      cwd: work,
      env: npmEnv({ npm_config_userconfig: registry.npmrc }),
    }),
  );
  const folder = join(work, "global-cli-folder");
  mkdirSync(folder);
  await step(cli.name, "vetted --help, organize → apply → undo", () => runGlobalCli(prefix, folder));
}

/** Installs what every README's install line names (plus @types/node) and type-checks the ESM consumer. */
async function typesConsumer(packages: readonly PublishedPackage[], work: string, registry: Registry) {
  const dir = join(work, "types");
  const args = new Set(packages.flatMap((pkg) => readmeInstall(pkg, false)));
  await step("all packages", "npm install (types consumer)", () =>
    npmInstall(dir, [...args, "@types/node@20"], registry),
  );
  await step("all packages", "tsc skipLibCheck:false (nodenext, bundler)", () => runTypeCheck(dir));
}

async function main(): Promise<number> {
  if (!(await registryReachable())) {
    process.stdout.write(
      "\n!!! SKIPPED: the npm registry is unreachable (`npm ping` failed): the consumer test needs it for\n" +
        "!!! verdaccio and the packages' dependencies. Nothing was checked.\n\n",
    );
    return 0;
  }
  buildIfStale();
  const packages = publishedPackages(FOLDERS);
  const work = mkdtempSync(join(tmpdir(), "vetted-consumer-"));
  let registry: Registry | undefined;
  try {
    // Packing needs no registry: it runs while verdaccio starts.
    const tarballs = join(work, "tarballs");
    const packing = Promise.allSettled(
      packages.map((pkg) => step(pkg.name, "pnpm pack", () => pack(pkg, tarballs))),
    );
    const starting = (async () => {
      const { bin } = await step(
        "verdaccio",
        `${VERDACCIO_VERSION} (npm install once, then cached)`,
        ensureVerdaccio,
      );
      registry = await step("verdaccio", "start on 127.0.0.1", () =>
        startRegistry(bin, join(work, "registry")),
      );
      return registry;
    })();
    // When verdaccio fails, the packs still end before the work folder goes.
    const [packed, started] = await Promise.all([
      packing,
      starting.catch(async (error: unknown) => {
        await packing;
        throw error;
      }),
    ]);
    say(`registry at ${started.url}`);
    await Promise.all(
      packed.map((result, index) => {
        if (result.status === "rejected") throw result.reason;
        const name = packages[index]?.name ?? "?";
        return step(name, "npm publish", () => publish(result.value, started));
      }),
    );
    const results = await Promise.allSettled([
      ...packages.map((pkg) => readmeConsumer(pkg, work, started)),
      globalCli(packages, work, started),
      typesConsumer(packages, work, started),
    ]);
    const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    if (failures.length > 0) throw new AggregateError(failures);
    return 0;
  } finally {
    await registry?.stop();
    const since = Date.now();
    rmSync(work, { recursive: true, force: true });
    say(`removed ${work} in ${seconds(since)}`);
  }
}

try {
  process.exitCode = await main();
  say(`done in ${seconds(started)}`);
} catch (error) {
  const errors = error instanceof AggregateError ? error.errors : [error];
  for (const failure of errors) {
    const message = failure instanceof Error ? failure.message : String(failure);
    process.stderr.write(`\nconsumer test FAILED: ${message}\n`);
  }
  say(`failed after ${seconds(started)}`);
  process.exitCode = 1;
}
