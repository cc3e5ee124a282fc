import { suggestName } from "../domain/issue-text.js";
import type { TextIssue } from "../domain/issues.js";
import { renderJsonSchemaText, SCHEMA_DRAFTS, type SchemaDraft } from "../domain/json-schema.js";
import { SCALAR_ROW_FIELDS } from "../domain/lint.js";
import { facets, group, query, type Selection, type WhereClause } from "../domain/query.js";
import type { ComparisonDocument } from "../domain/schema.js";
import { loadInput, STDIN } from "./inputs.js";
import { type CliIo, EXIT } from "./io.js";
import { type Flags, parseCommand } from "./parse.js";
import { UsageError } from "./usage.js";

function describeIssues(file: string, issues: readonly TextIssue[]): string {
  return issues
    .map((issue) => `${file}:${issue.line}:${issue.column}  ${issue.code}  ${issue.message}`)
    .join("\n");
}

/** Loads one document for a query command; answers an exit code when it cannot be used. */
async function loadForQuery(
  command: "query" | "facets" | "group",
  file: string | undefined,
  io: CliIo,
): Promise<ComparisonDocument | number> {
  if (file === undefined) throw new UsageError("Name the document file (or - for standard input).", command);
  const label = file === STDIN ? "<stdin>" : file;
  const loaded = await loadInput(file, io, label);
  if (loaded.status === "unreadable") {
    io.stderr(`${label}: cannot read the file (${loaded.reason})\n`);
    return EXIT.usage;
  }
  if (loaded.status === "invalid") {
    io.stderr(`${describeIssues(label, loaded.issues)}\n${label} is not a valid comparison document.\n`);
    return EXIT.invalid;
  }
  return loaded.value;
}

function selectionOf(command: "query" | "facets", flags: Flags): Selection {
  const where: Record<string, Array<string | boolean>> = {};
  for (const condition of (flags.where as string[] | undefined) ?? []) {
    const separator = condition.indexOf("=");
    if (separator <= 0) throw new UsageError(`--where takes field=value, not "${condition}".`, command);
    const field = condition.slice(0, separator);
    if (!SCALAR_ROW_FIELDS.includes(field)) {
      const suggestion = suggestName(field, SCALAR_ROW_FIELDS);
      throw new UsageError(
        `Rows cannot be filtered on "${field}"${suggestion === undefined ? "" : `; did you mean "${suggestion}"?`} Filterable fields: ${SCALAR_ROW_FIELDS.join(", ")}.`,
        command,
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

/** `query <file>`: the matching rows as JSON, or their ids with `--ids`. */
export async function runQuery(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("query", args, {
    ...SELECTION_OPTIONS,
    ids: { type: "boolean" },
  });
  if (positionals.length > 1) throw new UsageError("query takes one document file.", "query");
  const selection = selectionOf("query", values);
  const document = await loadForQuery("query", positionals[0], io);
  if (typeof document === "number") return document;
  const rows = query(document, selection);
  io.stdout(
    values.ids === true ? rows.map((row) => `${row.id}\n`).join("") : `${JSON.stringify(rows, null, 2)}\n`,
  );
  return EXIT.ok;
}

/** `facets <file>`: the value counts of every filter group for a selection. */
export async function runFacets(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("facets", args, SELECTION_OPTIONS);
  if (positionals.length > 1) throw new UsageError("facets takes one document file.", "facets");
  const selection = selectionOf("facets", values);
  const document = await loadForQuery("facets", positionals[0], io);
  if (typeof document === "number") return document;
  io.stdout(`${JSON.stringify(facets(document, selection), null, 2)}\n`);
  return EXIT.ok;
}

/** `group <id> <file>`: one filter group resolved to its rows. */
export async function runGroup(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseCommand("group", args, {});
  const [id, file, ...rest] = positionals;
  if (id === undefined || file === undefined || rest.length > 0) {
    throw new UsageError("group takes a group id and a document file.", "group");
  }
  const document = await loadForQuery("group", file, io);
  if (typeof document === "number") return document;
  io.stdout(`${JSON.stringify(group(document, id), null, 2)}\n`);
  return EXIT.ok;
}

/** `schema [--draft 2020-12|07]`: the JSON Schema. */
export function runSchema(args: string[], io: CliIo): number {
  const { values, positionals } = parseCommand("schema", args, { draft: { type: "string" } });
  if (positionals.length > 0) throw new UsageError("schema takes no arguments.", "schema");
  const draft = (values.draft ?? "2020-12") as SchemaDraft;
  if (!SCHEMA_DRAFTS.includes(draft)) {
    throw new UsageError(
      `Unknown draft "${String(values.draft)}"; use ${SCHEMA_DRAFTS.join(" or ")}.`,
      "schema",
    );
  }
  io.stdout(renderJsonSchemaText(draft));
  return EXIT.ok;
}
