/**
 * The consumer test's steps against a running local registry: publish a workspace package, install a
 * package as its README says and run the README's example, install the CLI globally and organize → apply →
 * undo with it, type-check an ESM consumer. Each step throws a {@link StepError} naming its package and step.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { delimiter, join, relative } from "node:path";
import { typeCheckConsumer } from "../check-public-types.js";
import { readReadmeExample } from "../readme-example.js";
import { npmEnv, type Registry } from "./verdaccio.js";

export const ROOT = join(import.meta.dirname, "..", "..");

/** A failed step: which package, which step, and why. */
export class StepError extends Error {
  constructor(
    readonly pkg: string,
    readonly step: string,
    message: string,
  ) {
    super(`${pkg} › ${step}: ${message}`);
  }
}

/** Runs a command; answers its stdout; throws with its stdout and stderr (trimmed) when it fails. */
export function exec(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? npmEnv(),
        timeout: options.timeout ?? 480_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        if (error === null) return resolve(stdout);
        const tail = (text: string) => text.trim().split("\n").slice(-30).join("\n");
        const shown = `${command} ${args.join(" ")}`;
        if (error.killed) error.message = `timed out after ${(options.timeout ?? 480_000) / 1000} s`;
        reject(
          new Error(
            `\`${shown}\` failed (${error.message.split("\n")[0]})\n${tail(stdout)}\n${tail(stderr)}`,
          ),
        );
      },
    );
  });
}

/** A workspace package this test publishes. */
export interface PublishedPackage {
  /** `@vetted/store` … */
  name: string;
  /** Absolute path of its folder. */
  dir: string;
}

/** The non-private packages under packages/. */
export function publishedPackages(names: readonly string[]): PublishedPackage[] {
  return names.flatMap((folder) => {
    const dir = join(ROOT, "packages", folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      name: string;
      private?: boolean;
    };
    return manifest.private === true ? [] : [{ name: manifest.name, dir }];
  });
}

/**
 * Packs one package into `tarballs/<folder>/` with `pnpm pack` (pnpm turns `workspace:^` into real ranges:
 * the tarball `pnpm publish` would upload) and answers the tarball's path.
 */
export async function pack(pkg: PublishedPackage, tarballs: string): Promise<string> {
  const dest = join(tarballs, pkg.name.replace("@vetted/", ""));
  mkdirSync(dest, { recursive: true });
  await exec("pnpm", ["pack", "--pack-destination", dest], { cwd: pkg.dir });
  const [tarball] = readdirSync(dest).filter((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`pnpm pack left no tarball in ${dest}`);
  return join(dest, tarball);
}

/**
 * `npm publish` of a packed tarball to the registry: what `pnpm publish` does after packing (pnpm 10 hands
 * the tarball to npm), split so that packing runs while verdaccio starts.
 */
export async function publish(tarball: string, registry: Registry): Promise<void> {
  await exec("npm", ["publish", tarball, "--registry", registry.url, "--loglevel=error"], {
    cwd: join(tarball, ".."),
    env: npmEnv({ npm_config_userconfig: registry.npmrc }),
  });
}

/**
 * The arguments of the README's `npm install …` lines (in ```sh blocks) naming the package: the local one
 * and, with `global`, the `npm install -g` one. Throws when the README has none.
 */
export function readmeInstall(pkg: PublishedPackage, global: boolean): string[] {
  const readme = readFileSync(join(pkg.dir, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  for (const line of blocks.join("\n").split("\n")) {
    const args = /^npm install (.*?)\s*(#.*)?$/.exec(line.trim())?.[1]?.split(/\s+/) ?? [];
    if (!args.includes(pkg.name) || args.includes("-g") !== global) continue;
    return args.filter((arg) => arg !== "-g");
  }
  const shown = global ? "npm install -g" : "npm install";
  throw new Error(`README.md shows no \`${shown} ${pkg.name}\` in a \`\`\`sh block`);
}

/**
 * Quiet, and metadata from npm's cache when it has it (the `@vetted` scope is never cached: its registry's
 * port is new each run).
 */
export const NPM_INSTALL_FLAGS = ["--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"];

/** `npm install <args>` in `dir` (a fresh project) from the local registry. */
export async function npmInstall(dir: string, args: readonly string[], registry: Registry): Promise<void> {
  if (!existsSync(join(dir, "package.json"))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), '{ "name": "consumer", "private": true }\n');
  }
  await exec("npm", ["install", ...args, ...NPM_INSTALL_FLAGS], {
    cwd: dir,
    env: npmEnv({ npm_config_userconfig: registry.npmrc }),
  });
}

/** Runs the README's first ```ts example verbatim in `dir` with the repository's tsx, checks what it prints. */
export async function runExample(pkg: PublishedPackage, dir: string): Promise<void> {
  const { code, expected } = readReadmeExample(pkg.dir);
  if (expected.length === 0) throw new Error("the README example promises no output (`// …` comments)");
  writeFileSync(join(dir, "example.mts"), code);
  const tsx = join(ROOT, "node_modules", ".bin", "tsx");
  const printed = (await exec(tsx, ["example.mts"], { cwd: dir, timeout: 240_000 })).trim().split("\n");
  if (JSON.stringify(printed) !== JSON.stringify(expected))
    throw new Error(
      `printed\n  ${printed.join("\n  ")}\nwhere the README promises\n  ${expected.join("\n  ")}`,
    );
}

/** The `vetted-comparison` bin an install links checks the example document the package ships. */
export async function runComparisonBin(dir: string): Promise<void> {
  const example = join("node_modules", "@vetted", "comparison", "examples", "comparison.json");
  const bin = join(dir, "node_modules", ".bin", "vetted-comparison");
  const out = await exec(bin, ["check", example, "--curated", "audience"], { cwd: dir, timeout: 60_000 });
  if (out !== "0 errors, 0 warnings in 1 file (1 clean)\n")
    throw new Error(`vetted-comparison check printed ${out}`);
}

/** `vetted …` from the global install's prefix, on the PATH as after `npm install -g`. */
function vetted(prefix: string, cwd: string, args: readonly string[]): Promise<string> {
  const env = npmEnv({
    PATH: `${join(prefix, "bin")}${delimiter}${process.env.PATH ?? ""}`,
    VETTED_DATA_DIR: join(cwd, "data"),
    VETTED_ALLOWED_ROOTS: cwd,
  });
  return exec("vetted", args, { cwd, env, timeout: 240_000 });
}

function assertPlaces(cwd: string, moves: readonly [string, string][], where: "source" | "target"): void {
  for (const [source, target] of moves) {
    const [here, gone] = where === "source" ? [source, target] : [target, source];
    if (!existsSync(here) || existsSync(gone))
      throw new Error(`${relative(cwd, source)} → ${relative(cwd, target)}: expected at the ${where}`);
  }
}

/** `vetted --help`, then organize → apply → undo of a few files in `cwd`, checking the files move and return. */
export async function runGlobalCli(prefix: string, cwd: string): Promise<void> {
  const help = await vetted(prefix, cwd, ["--help"]);
  for (const command of ["organize", "apply", "undo"])
    if (!help.includes(command)) throw new Error(`\`vetted --help\` does not mention ${command}:\n${help}`);
  const downloads = join(cwd, "Downloads");
  mkdirSync(downloads, { recursive: true });
  const may2024 = new Date("2024-05-06T12:00:00Z");
  for (const name of ["notes.txt", "todo.md", "mystery.dat"]) {
    writeFileSync(join(downloads, name), `this is ${name}`);
    utimesSync(join(downloads, name), may2024, may2024);
  }
  const plan = JSON.parse(
    await vetted(prefix, cwd, ["organize", "Downloads", "--out", "Sorted", "--json"]),
  ) as {
    job_id: string;
    rows: { source_path: string; target_path: string; review_bucket: string }[];
  };
  const moves = plan.rows
    .filter((row) => row.review_bucket === "auto_safe")
    .map((row): [string, string] => [row.source_path, row.target_path]);
  if (moves.length !== 2) throw new Error(`organize planned ${moves.length} auto_safe moves, expected 2`);
  assertPlaces(cwd, moves, "source");
  await vetted(prefix, cwd, ["apply", plan.job_id, "--yes", "--json"]);
  assertPlaces(cwd, moves, "target");
  await vetted(prefix, cwd, ["undo", plan.job_id, "--json"]);
  assertPlaces(cwd, moves, "source");
}

/** Type-checks the ESM consumer in `dir` (packages installed there) under nodenext and bundler. */
export async function runTypeCheck(dir: string): Promise<void> {
  const results = await typeCheckConsumer(dir);
  const failed = Object.entries(results).filter(([, errors]) => errors !== "");
  if (failed.length > 0) throw new Error(failed.map(([name, errors]) => `${name}:\n${errors}`).join("\n"));
}
