import { dirname, resolve } from "node:path";
import { suggestName } from "../domain/issue-text.js";
import type { Issue } from "../domain/issues.js";
import { lint } from "../domain/lint.js";
import { locateIssues, sortIssuesByPosition } from "../domain/text.js";
import { checkFiles } from "../node/file-rules.js";
import { expandPatterns, type LoadedInput, loadInput, resolveBaseDir, STDIN } from "./inputs.js";
import { type CliIo, EXIT } from "./io.js";
import { parseCommand } from "./parse.js";
import type { FileReport, OutputFormat } from "./report.js";
import { formatGithub, formatJson, formatText, OUTPUT_FORMATS } from "./report.js";
import { type CommandName, UsageError } from "./usage.js";

const VALIDATE_OPTIONS = {
  format: { type: "string" },
  lint: { type: "boolean" },
  "no-lint": { type: "boolean" },
  "warnings-as-errors": { type: "boolean" },
  curated: { type: "string", multiple: true },
  "check-files": { type: "boolean" },
  "base-dir": { type: "string" },
  "stdin-name": { type: "string" },
} as const;

interface ValidateSettings {
  readonly format: OutputFormat;
  readonly lint: boolean;
  readonly warningsAsErrors: boolean;
  readonly curated: readonly string[];
  /** Whether to run the file rules, and from which folder (undefined: each document's folder). */
  readonly checkFiles: boolean;
  readonly baseDir: string | undefined;
  readonly stdinName: string | undefined;
}

async function settingsOf(command: CommandName, args: string[], io: CliIo) {
  const { values, positionals } = parseCommand(command, args, VALIDATE_OPTIONS);
  const format = (values.format ?? (io.env.GITHUB_ACTIONS === "true" ? "github" : "text")) as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    throw new UsageError(
      `Unknown format "${String(values.format)}"; use ${OUTPUT_FORMATS.join(", ")}.`,
      command,
    );
  }
  if (positionals.length === 0) {
    throw new UsageError(`${command} needs at least one file, glob or - (standard input).`, command);
  }
  const baseDir = typeof values["base-dir"] === "string" ? values["base-dir"] : undefined;
  const settings: ValidateSettings = {
    format,
    lint: values["no-lint"] !== true,
    warningsAsErrors: values["warnings-as-errors"] === true,
    curated: (values.curated as string[] | undefined) ?? [],
    checkFiles: values["check-files"] === true || baseDir !== undefined,
    baseDir: baseDir === undefined ? undefined : await resolveBaseDir(baseDir, io.cwd),
    stdinName: typeof values["stdin-name"] === "string" ? values["stdin-name"] : undefined,
  };
  return { settings, patterns: positionals };
}

/** The folder the file rules resolve a document's paths from. */
function filesBaseOf(file: string, label: string, settings: ValidateSettings, io: CliIo): string {
  if (settings.baseDir !== undefined) return settings.baseDir;
  return dirname(resolve(io.cwd, file === STDIN ? label : file));
}

async function reportOf(
  file: string,
  label: string,
  loaded: LoadedInput,
  settings: ValidateSettings,
  io: CliIo,
): Promise<FileReport> {
  if (loaded.status === "unreadable") return { file: label, readable: false, reason: loaded.reason };
  if (loaded.status === "invalid") return { file: label, readable: true, issues: loaded.issues };
  // `--curated` names groups of any checked document (checkCuratedIds refused the others); each
  // document is linted with the ones it defines.
  const groupIds = new Set(loaded.value.filters.map((group) => group.id));
  const curatedGroups = settings.curated.filter((id) => groupIds.has(id));
  const found: Issue[] = settings.lint ? lint(loaded.value, { curatedGroups }) : [];
  if (settings.checkFiles) {
    found.push(...(await checkFiles(loaded.value, { baseDir: filesBaseOf(file, label, settings, io) })));
  }
  const located = locateIssues(loaded.text, found).map((issue) => ({ ...issue, file: label }));
  return { file: label, readable: true, issues: sortIssuesByPosition(located) };
}

/** A `--curated` id that no valid checked document defines is a usage error, with a suggestion. */
function checkCuratedIds(curated: readonly string[], loaded: readonly LoadedInput[], command: CommandName) {
  const valid = loaded.flatMap((input) => (input.status === "valid" ? [input.value] : []));
  if (valid.length === 0 || curated.length === 0) return;
  const known = [...new Set(valid.flatMap((document) => document.filters.map((group) => group.id)))];
  const unknown = curated.filter((id) => !known.includes(id));
  if (unknown.length === 0) return;
  const messages = unknown.map((id) => {
    const suggestion = suggestName(id, known);
    const hint = suggestion === undefined ? "" : ` (did you mean ${JSON.stringify(suggestion)}?)`;
    return `--curated ${JSON.stringify(id)} names no filter group of the checked documents${hint}`;
  });
  throw new UsageError(`${messages.join("; ")}; known groups: ${known.join(", ")}.`, command);
}

function render(format: OutputFormat, reports: readonly FileReport[]): string {
  if (format === "json") return formatJson(reports);
  return format === "github" ? formatGithub(reports) : formatText(reports);
}

/**
 * `validate` (and its other name, `check`): every document against the schema, then the integrity
 * rules and, when asked, the file rules; prints the reports and answers 0, 1 (findings) or 2.
 */
export async function runValidate(command: CommandName, args: string[], io: CliIo): Promise<number> {
  const { settings, patterns } = await settingsOf(command, args, io);
  const files = await expandPatterns(patterns, io.cwd, command);
  const labelOf = (file: string) => (file === STDIN ? (settings.stdinName ?? "<stdin>") : file);
  const loaded: LoadedInput[] = [];
  for (const file of files) loaded.push(await loadInput(file, io, labelOf(file)));
  checkCuratedIds(settings.curated, loaded, command);
  const reports: FileReport[] = [];
  for (const [index, file] of files.entries()) {
    const input = loaded[index];
    if (input !== undefined) reports.push(await reportOf(file, labelOf(file), input, settings, io));
  }
  io.stdout(render(settings.format, reports));
  if (reports.some((report) => !report.readable)) return EXIT.usage;
  const issues = reports.flatMap((report) => (report.readable ? report.issues : []));
  const failing = issues.some((issue) => issue.severity === "error" || settings.warningsAsErrors);
  return failing ? EXIT.invalid : EXIT.ok;
}
