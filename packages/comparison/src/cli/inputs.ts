import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";
import type { TextIssue } from "../domain/issues.js";
import type { ComparisonDocument } from "../domain/schema.js";
import { validateText } from "../domain/text.js";
import type { CliIo } from "./io.js";
import { type CommandName, UsageError } from "./usage.js";

/** The argument that names standard input. */
export const STDIN = "-";

/** Folders a glob never enters unless the pattern names them: dependencies and Git's own files. */
export const SKIPPED_FOLDERS = ["node_modules", ".git"] as const;

/** One document to check: read from a file or from standard input, then validated. */
export type LoadedInput =
  | { readonly status: "valid"; readonly text: string; readonly value: ComparisonDocument }
  | { readonly status: "invalid"; readonly text: string; readonly issues: readonly TextIssue[] }
  | { readonly status: "unreadable"; readonly reason: string };

/**
 * Expands the file arguments: a glob becomes its matches (sorted; `**` skips {@link SKIPPED_FOLDERS}
 * unless the pattern names one), `-` and plain paths stay as they are. A glob matching nothing, or `-`
 * given twice, is a usage error.
 */
export async function expandPatterns(
  patterns: readonly string[],
  cwd: string,
  command: CommandName,
): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (pattern === STDIN || !isDynamicPattern(pattern)) {
      files.push(pattern);
      continue;
    }
    const segments = pattern.split("/");
    const ignore = SKIPPED_FOLDERS.filter((folder) => !segments.includes(folder)).map(
      (folder) => `**/${folder}/**`,
    );
    const matches = await glob(pattern, { cwd, onlyFiles: true, expandDirectories: false, ignore });
    if (matches.length === 0) throw new UsageError(`No file matches ${pattern}.`, command);
    files.push(...matches.sort());
  }
  if (files.filter((file) => file === STDIN).length > 1) {
    throw new UsageError("Standard input (-) can be read only once.", command);
  }
  return [...new Set(files)];
}

async function readInput(file: string, io: CliIo, label: string): Promise<string> {
  if (file !== STDIN) return readFile(resolve(io.cwd, file), "utf8");
  if (io.readStdin === undefined) throw new Error(`standard input is not available to read ${label}`);
  return io.readStdin();
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads a document (a file relative to `io.cwd`, or standard input for `-`) and validates it; issues
 * carry `label` as their file. An unreadable input is a value, not a throw.
 */
export async function loadInput(file: string, io: CliIo, label: string): Promise<LoadedInput> {
  let text: string;
  try {
    text = await readInput(file, io, label);
  } catch (error) {
    return { status: "unreadable", reason: reasonOf(error) };
  }
  const result = validateText(text, label);
  return result.ok
    ? { status: "valid", text, value: result.value }
    : { status: "invalid", text, issues: result.issues };
}

/** Resolves `--base-dir` from the working folder; a path that is no folder is a usage error. */
export async function resolveBaseDir(dir: string, cwd: string): Promise<string> {
  const path = resolve(cwd, dir);
  const found = await stat(path).catch(() => undefined);
  if (found?.isDirectory() !== true) {
    throw new UsageError(`--base-dir ${dir} is not a folder (looked for ${path}).`, "validate");
  }
  return path;
}
