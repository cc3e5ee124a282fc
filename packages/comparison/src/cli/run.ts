import { dirname, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { parseArgs } from "node:util";
import { glob, isDynamicPattern } from "tinyglobby";
import type { Issue, TextIssue } from "../domain/issues.js";
import { renderJsonSchemaText, SCHEMA_DRAFTS, type SchemaDraft } from "../domain/json-schema.js";
import { lint, SCALAR_ROW_FIELDS } from "../domain/lint.js";
import { facets, group, query, type Selection, type WhereClause } from "../domain/query.js";
import type { ComparisonDocument } from "../domain/schema.js";
import { locateIssues } from "../domain/text.js";
import { ComparisonError } from "../errors.js";
import { checkFiles } from "../node/file-rules.js";
import { loadDocument } from "../node/load.js";
import type { FileReport, OutputFormat } from "./report.js";
import { formatGithub, formatJson, formatText, OUTPUT_FORMATS } from "./report.js";

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** Where the CLI reads its environment and writes its output; the bin passes the real process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The CLI reference, printed by `help` and after a usage error. */
export const USAGE = `Usage: vetted-comparison <command> [options]

Commands:
  validate <files or globs...>   Check documents against the schema, then the integrity rules
      --format text|json|github  Output format (default: text; github when GITHUB_ACTIONS=true)
      --lint, --no-lint          Run the integrity rules (default: --lint)
      --warnings-as-errors       Exit 1 when there are warnings only
      --curated <group-id>       Treat a filter group as hand-curated (repeatable)
      --check-files              Also require recommendedDocs and copyReadyPackPath to exist,
                                 relative to each document's folder
  query <file>                   Print the matching rows as JSON
      --where <field=value>      Condition on a row field (repeat: AND across fields, OR within one)
      --group <group:value>      Picked filter value (repeat: OR within a group, AND across groups)
      --ids                      Print only the row ids, one per line
  facets <file>                  Print the value counts of every filter group (same --where/--group)
  group <id> <file>              Print a filter group resolved to its rows as JSON
  schema [--draft 2020-12|07]    Print the JSON Schema (default: 2020-12)
  help                           Print this reference

Exit codes: 0 valid (or command done), 1 invalid document, 2 usage error or unreadable file.
`;

class UsageError extends Error {}

type Flags = Record<string, string | boolean | string[] | undefined>;

function parse<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function expandPatterns(patterns: readonly string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (!isDynamicPattern(pattern)) {
      files.push(pattern);
      continue;
    }
    const matches = await glob(pattern, { cwd, onlyFiles: true, expandDirectories: false });
    if (matches.length === 0) throw new UsageError(`No file matches ${pattern}.`);
    files.push(...matches.sort());
  }
  return [...new Set(files)];
}

async function runValidate(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    format: { type: "string" },
    lint: { type: "boolean" },
    "no-lint": { type: "boolean" },
    "warnings-as-errors": { type: "boolean" },
    curated: { type: "string", multiple: true },
    "check-files": { type: "boolean" },
  });
  const flags = values as Flags;
  const format = (flags.format ?? (io.env.GITHUB_ACTIONS === "true" ? "github" : "text")) as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    throw new UsageError(`Unknown format "${String(flags.format)}"; use ${OUTPUT_FORMATS.join(", ")}.`);
  }
  if (positionals.length === 0) throw new UsageError("validate needs at least one file or glob.");
  const runLint = flags["no-lint"] !== true;
  const curatedGroups = (flags.curated as string[] | undefined) ?? [];
  const files = await expandPatterns(positionals, io.cwd);
  const reports: FileReport[] = [];
  for (const file of files) {
    const path = resolve(io.cwd, file);
    const loaded = await loadDocument(path);
    if (loaded.status === "unreadable") {
      reports.push({ file, readable: false, reason: loaded.reason });
      continue;
    }
    if (loaded.status === "invalid") {
      reports.push({ file, readable: true, issues: loaded.issues });
      continue;
    }
    const found: Issue[] = runLint ? lint(loaded.value, { curatedGroups }) : [];
    if (flags["check-files"] === true)
      found.push(...(await checkFiles(loaded.value, { baseDir: dirname(path) })));
    reports.push({ file, readable: true, issues: locateIssues(loaded.text, found) });
  }
  const output =
    format === "json"
      ? formatJson(reports)
      : format === "github"
        ? formatGithub(reports)
        : formatText(reports);
  io.stdout(output);
  if (reports.some((report) => !report.readable)) return EXIT.usage;
  const issues = reports.flatMap((report) => (report.readable ? report.issues : []));
  const failing = issues.some((issue) => issue.severity === "error" || flags["warnings-as-errors"] === true);
  return failing ? EXIT.invalid : EXIT.ok;
}

function describeIssues(file: string, issues: readonly TextIssue[]): string {
  return issues
    .map((issue) => `${file}:${issue.line}:${issue.column}  ${issue.code}  ${issue.message}`)
    .join("\n");
}

/** Loads one document for a query command; answers an exit code when it cannot be used. */
async function loadForQuery(file: string | undefined, io: CliIo): Promise<ComparisonDocument | number> {
  if (file === undefined) throw new UsageError("Name the document file.");
  const loaded = await loadDocument(resolve(io.cwd, file));
  if (loaded.status === "unreadable") {
    io.stderr(`${file}: cannot read the file (${loaded.reason})\n`);
    return EXIT.usage;
  }
  if (loaded.status === "invalid") {
    io.stderr(`${describeIssues(file, loaded.issues)}\n${file} is not a valid comparison document.\n`);
    return EXIT.invalid;
  }
  return loaded.value;
}

function selectionOf(flags: Flags): Selection {
  const where: Record<string, Array<string | boolean>> = {};
  for (const condition of (flags.where as string[] | undefined) ?? []) {
    const separator = condition.indexOf("=");
    if (separator <= 0) throw new UsageError(`--where takes field=value, not "${condition}".`);
    const field = condition.slice(0, separator);
    if (!SCALAR_ROW_FIELDS.includes(field)) {
      throw new UsageError(
        `Rows cannot be filtered on "${field}"; filterable fields: ${SCALAR_ROW_FIELDS.join(", ")}.`,
      );
    }
    const raw = condition.slice(separator + 1);
    const value = raw === "true" ? true : raw === "false" ? false : raw;
    where[field] = [...(where[field] ?? []), value];
  }
  return { where: where as WhereClause, groups: (flags.group as string[] | undefined) ?? [] };
}

const SELECTION_OPTIONS = {
  where: { type: "string", multiple: true },
  group: { type: "string", multiple: true },
} as const;

async function runQuery(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { ...SELECTION_OPTIONS, ids: { type: "boolean" } });
  if (positionals.length > 1) throw new UsageError("query takes one document file.");
  const document = await loadForQuery(positionals[0], io);
  if (typeof document === "number") return document;
  const rows = query(document, selectionOf(values as Flags));
  io.stdout(
    (values as Flags).ids === true
      ? rows.map((row) => `${row.id}\n`).join("")
      : `${JSON.stringify(rows, null, 2)}\n`,
  );
  return EXIT.ok;
}

async function runFacets(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, SELECTION_OPTIONS);
  if (positionals.length > 1) throw new UsageError("facets takes one document file.");
  const document = await loadForQuery(positionals[0], io);
  if (typeof document === "number") return document;
  io.stdout(`${JSON.stringify(facets(document, selectionOf(values as Flags)), null, 2)}\n`);
  return EXIT.ok;
}

async function runGroup(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parse(args, {});
  const [id, file, ...rest] = positionals;
  if (id === undefined || file === undefined || rest.length > 0) {
    throw new UsageError("group takes a group id and a document file: group <id> <file>.");
  }
  const document = await loadForQuery(file, io);
  if (typeof document === "number") return document;
  io.stdout(`${JSON.stringify(group(document, id), null, 2)}\n`);
  return EXIT.ok;
}

function runSchema(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { draft: { type: "string" } });
  if (positionals.length > 0) throw new UsageError("schema takes no arguments.");
  const draft = (values.draft ?? "2020-12") as SchemaDraft;
  if (!SCHEMA_DRAFTS.includes(draft)) {
    throw new UsageError(`Unknown draft "${String(values.draft)}"; use ${SCHEMA_DRAFTS.join(" or ")}.`);
  }
  io.stdout(renderJsonSchemaText(draft));
  return EXIT.ok;
}

/** Runs one CLI invocation and answers its exit code. Never throws for bad input: that is exit code 2. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case "validate":
        return await runValidate(args, io);
      case "query":
        return await runQuery(args, io);
      case "facets":
        return await runFacets(args, io);
      case "group":
        return await runGroup(args, io);
      case "schema":
        return runSchema(args, io);
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE);
        return EXIT.ok;
      default:
        throw new UsageError(command === undefined ? "Name a command." : `Unknown command "${command}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`vetted-comparison: ${error.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (error instanceof ComparisonError) {
      io.stderr(`vetted-comparison: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
