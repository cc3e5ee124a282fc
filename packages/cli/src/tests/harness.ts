import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildsAreFresh, CLI_BUILDS } from "../../../../tools/fresh-dist.js";

const CLI_DIR = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(CLI_DIR, "src", "bin.ts");
const TSX = pathToFileURL(createRequire(join(CLI_DIR, "package.json")).resolve("tsx")).href;

/**
 * The command line that runs `vetted`: its build when the workspace's builds are current (CI builds before
 * it tests), else its sources (tsx, `@vetted/source` condition).
 */
export const VETTED: readonly [string, ...string[]] = buildsAreFresh(CLI_BUILDS)
  ? [process.execPath, join(CLI_DIR, "dist", "bin.js")]
  : [process.execPath, "--conditions=@vetted/source", "--import", TSX, BIN];

/** What a finished `vetted` process left. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `vetted args…` as a real process (stdin closed unless `input`), with `env` over a clean base. */
export function runVetted(
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
  cwd?: string,
): Promise<Run> {
  const [node, ...rest] = VETTED;
  const child = spawn(node, [...rest, ...args], {
    cwd: cwd ?? CLI_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return collect(child, input);
}

function collect(child: ChildProcess, input?: string): Promise<Run> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin?.end(input ?? "");
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A temp folder with a data dir; removed by `cleanup`. */
export interface Sandbox {
  root: string;
  dataDir: string;
  /** The env of a standalone `vetted` confined to this sandbox. */
  env: Record<string, string>;
  cleanup(): void;
}

/** A fresh sandbox under the system temp directory. */
export function createSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "vetted-cli-"));
  const dataDir = join(root, "data");
  return {
    root,
    dataDir,
    env: { VETTED_DATA_DIR: dataDir, VETTED_ALLOWED_ROOTS: root },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

const MAY_2024 = new Date("2024-05-06T12:00:00Z");

/**
 * A messy folder: documents and images that sort cleanly (auto_safe), files of unknown type (needs_review,
 * low confidence), and two copies of one file under one name (a conflict).
 */
export function writeMessyTree(dir: string): void {
  const files: Array<[string, string | Buffer]> = [
    ["notes.txt", "hello"],
    ["todo.md", "# todo\n- organize\n"],
    ["report.csv", "a,b\n1,2\n"],
    [
      "pics/photo.png",
      Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex"),
    ],
    ["scan-001.dat", "scan one"],
    ["scan-002.dat", "scan two"],
    ["scan-003.dat", "scan three"],
    ["copy/readme.txt", "same text"],
    ["readme.txt", "same text"],
  ];
  for (const [name, content] of files) {
    const path = join(dir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
    utimesSync(path, MAY_2024, MAY_2024);
  }
}

/** Every file under `dir`, relative path → SHA-256 of its content. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  walk(dir);
  return out;
}
