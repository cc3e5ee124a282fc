/* The CLI's help texts: one reference per command, a short usage line for usage errors. */

/** A mistake in how the CLI was called: answered with a short usage line and exit code 2. */
export class UsageError extends Error {
  /** The command whose usage line to show; none for the top-level usage line. */
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

/** The commands, `check` being another name of `validate`. */
export const COMMAND_NAMES = ["validate", "check", "query", "facets", "group", "schema", "help"] as const;
/** A command of the CLI. */
export type CommandName = (typeof COMMAND_NAMES)[number];

/** Whether `value` names a command. */
export function isCommandName(value: string | undefined): value is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(value ?? "");
}

const VALIDATE_OPTIONS = `      --format text|json|github  Output format (default: text; github when GITHUB_ACTIONS=true)
      --lint, --no-lint          Run the integrity rules (default: --lint)
      --warnings-as-errors       Exit 1 when there are warnings only
      --curated <group-id>       Treat a filter group as hand-curated (repeatable; an id no checked
                                 document defines is a usage error)
      --check-files              Also require recommendedDocs and copyReadyPackPath to exist,
                                 relative to each document's folder
      --base-dir <dir>           Resolve those paths from <dir> instead (e.g. the repository root);
                                 implies --check-files
      --stdin-name <path>        The name a document read from - is reported under
  A glob (quote it) skips node_modules and .git folders unless it names them; - reads standard input.`;

const SELECTION_OPTIONS = `      --where <field=value>      Condition on a row field (repeat: AND across fields, OR within one)
      --group <group:value>      Picked filter value (repeat: OR within a group, AND across groups)`;

interface CommandHelp {
  /** What follows the program name and the command. */
  readonly synopsis: string;
  readonly summary: string;
  readonly options?: string;
}

const HELP: Readonly<Record<Exclude<CommandName, "check">, CommandHelp>> = {
  validate: {
    synopsis: "validate [options] <files, globs or ->...",
    summary: "Check documents against the schema, then the integrity rules (alias: check)",
    options: VALIDATE_OPTIONS,
  },
  query: {
    synopsis: "query [options] <file or ->",
    summary: "Print the matching rows as JSON",
    options: `${SELECTION_OPTIONS}\n      --ids                      Print only the row ids, one per line`,
  },
  facets: {
    synopsis: "facets [options] <file or ->",
    summary: "Print the value counts of every filter group",
    options: SELECTION_OPTIONS,
  },
  group: { synopsis: "group <id> <file or ->", summary: "Print a filter group resolved to its rows as JSON" },
  schema: {
    synopsis: "schema [--draft 2020-12|07]",
    summary: "Print the JSON Schema (default: 2020-12)",
  },
  help: { synopsis: "help [command]", summary: "Print this reference, or one command's" },
};

const EXIT_CODES =
  "Exit codes: 0 valid (or command done), 1 invalid document, 2 usage error or unreadable file.";

function helpOf(command: CommandName): CommandHelp {
  return HELP[command === "check" ? "validate" : command];
}

/** The full reference, printed by `help` and `--help`. */
export function fullHelp(program: string): string {
  const lines = [`Usage: ${program} <command> [options]`, "", "Commands:"];
  for (const help of Object.values(HELP)) {
    lines.push(`  ${help.synopsis}`, `    ${help.summary}`);
    if (help.options !== undefined) lines.push(help.options);
  }
  lines.push(
    "",
    `Run "${program} <command> --help" for one command, "${program} --version" for the version.`,
    EXIT_CODES,
  );
  return `${lines.join("\n")}\n`;
}

/** One command's reference, printed by `<command> --help` and `help <command>`. */
export function commandHelp(program: string, command: CommandName): string {
  const help = helpOf(command);
  const lines = [`Usage: ${program} ${help.synopsis}`, "", help.summary];
  if (help.options !== undefined) lines.push("", "Options:", help.options);
  lines.push("", EXIT_CODES);
  return `${lines.join("\n")}\n`;
}

/** The short usage line shown after a usage error, with where to find the rest. */
export function shortUsage(program: string, command?: CommandName): string {
  if (command === undefined) {
    return `Usage: ${program} <command> [options]   (commands: ${Object.keys(HELP).join(", ")}; check = validate)\nRun "${program} --help" for the reference.\n`;
  }
  const name = command === "check" ? "check" : command;
  return `Usage: ${program} ${helpOf(command).synopsis.replace(/^\S+/, name)}\nRun "${program} ${name} --help" for the options.\n`;
}
