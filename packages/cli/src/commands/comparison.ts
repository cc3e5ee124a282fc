import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, type ExitCode } from "../exit.js";

/** What `@vetted/comparison/cli` exports: the `vetted-comparison` CLI as a function. */
interface ComparisonCliModule {
  runCli(
    argv: string[],
    io: {
      cwd: string;
      env: Readonly<Record<string, string | undefined>>;
      stdout: (text: string) => void;
      stderr: (text: string) => void;
      readStdin?: () => Promise<string>;
      programName?: string;
    },
  ): Promise<number>;
}

/** The comparison CLI's entry point; a specifier in a variable, resolved when the alias runs. */
const COMPARISON_CLI = "@vetted/comparison/cli";

async function loadComparisonCli(): Promise<ComparisonCliModule> {
  try {
    const mod = (await import(COMPARISON_CLI)) as Partial<ComparisonCliModule>;
    if (typeof mod.runCli === "function") return mod as ComparisonCliModule;
  } catch {
    // reported below
  }
  throw new CliError(
    "comparison needs @vetted/comparison with its CLI entry (@vetted/comparison/cli); install or update @vetted/comparison",
    EXIT.usage,
    "COMPARISON_CLI_MISSING",
  );
}

async function readAll(stream: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  if (stream.isTTY === true) throw new Error("standard input is a terminal; pipe a document into -");
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

/** `vetted comparison …`: the `vetted-comparison` CLI under the `vetted` name, same arguments and exit codes. */
export async function runComparison(ctx: CommandContext, argv: string[]): Promise<ExitCode> {
  const cli = await loadComparisonCli();
  const code = await cli.runCli(argv, {
    cwd: ctx.io.cwd,
    env: ctx.io.env,
    stdout: (text) => ctx.io.stdout.write(text),
    stderr: (text) => ctx.io.stderr.write(text),
    readStdin: () => readAll(ctx.io.stdin),
    programName: "vetted comparison",
  });
  return code === 0 ? EXIT.ok : code === 1 ? EXIT.findings : EXIT.usage;
}

/** Registers `comparison` for the help listing; its arguments are handed over whole before parsing. */
export function registerComparison(program: Command): void {
  program
    .command("comparison")
    .description(
      "The comparison document CLI (vetted-comparison): validate|check, query, facets, group, schema",
    )
    .argument("[args...]", "the vetted-comparison command and its options")
    .helpOption(false)
    .allowUnknownOption();
}
