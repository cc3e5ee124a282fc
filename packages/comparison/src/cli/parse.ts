import type { ParseArgsConfig } from "node:util";
import { parseArgs } from "node:util";
import { type CommandName, UsageError } from "./usage.js";

/** Parsed option values of one command. */
export type Flags = Record<string, string | boolean | string[] | undefined>;

/** Whether the arguments ask for help (`--help` or `-h` before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/** Strict option parsing for one command; a mistake is a {@link UsageError} naming the command. */
export function parseCommand<T extends NonNullable<ParseArgsConfig["options"]>>(
  command: CommandName,
  args: string[],
  options: T,
): { values: Flags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Flags, positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}
