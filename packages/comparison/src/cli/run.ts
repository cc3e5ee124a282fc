import packageJson from "../../package.json" with { type: "json" };
import { ComparisonError } from "../errors.js";
import { type CliIo, DEFAULT_PROGRAM_NAME, EXIT } from "./io.js";
import { wantsHelp } from "./parse.js";
import { runFacets, runGroup, runQuery, runSchema } from "./query-commands.js";
import { type CommandName, commandHelp, fullHelp, isCommandName, shortUsage, UsageError } from "./usage.js";
import { runValidate } from "./validate-command.js";

export type { CliIo } from "./io.js";
export { EXIT } from "./io.js";

/** The version of `@vetted/comparison`, printed by `--version`. */
export const VERSION: string = packageJson.version;

function runHelp(args: string[], io: CliIo, program: string): number {
  const [topic, ...rest] = args;
  if (rest.length > 0) throw new UsageError("help takes at most one command.", "help");
  if (topic === undefined) io.stdout(fullHelp(program));
  else if (isCommandName(topic)) io.stdout(commandHelp(program, topic));
  else throw new UsageError(`Unknown command "${topic}".`, "help");
  return EXIT.ok;
}

async function runCommand(command: CommandName, args: string[], io: CliIo, program: string) {
  if (wantsHelp(args)) {
    io.stdout(commandHelp(program, command));
    return EXIT.ok;
  }
  switch (command) {
    case "validate":
    case "check":
      return runValidate(command, args, io);
    case "query":
      return runQuery(args, io);
    case "facets":
      return runFacets(args, io);
    case "group":
      return runGroup(args, io);
    case "schema":
      return runSchema(args, io);
    case "help":
      return runHelp(args, io, program);
  }
}

/**
 * Runs one CLI invocation (`argv` without the node and script paths) and answers its exit code: 0 ok,
 * 1 findings, 2 usage or environment error. Never throws for bad input: that is exit code 2 with a
 * short usage line on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = io.programName ?? DEFAULT_PROGRAM_NAME;
  const [command, ...args] = argv;
  try {
    if (command === "--version" || command === "-V") {
      io.stdout(`${VERSION}\n`);
      return EXIT.ok;
    }
    if (command === "--help" || command === "-h") {
      io.stdout(fullHelp(program));
      return EXIT.ok;
    }
    if (!isCommandName(command)) {
      throw new UsageError(command === undefined ? "Name a command." : `Unknown command "${command}".`);
    }
    return await runCommand(command, args, io, program);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${program}: ${error.message}\n${shortUsage(program, error.command)}`);
      return EXIT.usage;
    }
    if (error instanceof ComparisonError) {
      io.stderr(`${program}: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
