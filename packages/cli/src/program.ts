import { Command, CommanderError } from "commander";
import { registerApply } from "./commands/apply.js";
import { registerComparison, runComparison } from "./commands/comparison.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerJobs } from "./commands/jobs.js";
import { registerOrganize } from "./commands/organize.js";
import { registerReview } from "./commands/review.js";
import { registerRules } from "./commands/rules.js";
import { registerServe } from "./commands/serve.js";
import { registerShow } from "./commands/show.js";
import { registerUndo } from "./commands/undo.js";
import { registerWatch } from "./commands/watch.js";
import { type CommandContext, createContext, exitCodeOf, messageOf } from "./context.js";
import { EXIT, type ExitCode } from "./exit.js";
import type { CliIo } from "./io.js";
import type { GlobalOptions } from "./settings.js";
import { CLI_VERSION } from "./version.js";

/** A command registrar: adds one command to the program; the command reports its exit code through `done`. */
export type Registrar = (program: Command, ctx: CommandContext, done: (code: ExitCode) => void) => void;

const REGISTRARS: Registrar[] = [
  registerOrganize,
  registerReview,
  registerRules,
  registerApply,
  registerUndo,
  registerJobs,
  registerShow,
  registerWatch,
  registerServe,
  registerDoctor,
];

const EPILOG = `
Standalone, vetted keeps its database in VETTED_DATA_DIR (default: $XDG_DATA_HOME/vetted or
~/.local/share/vetted) and works inside VETTED_ALLOWED_ROOTS, as the server does. With --server (or
VETTED_SERVER) every command talks to that server instead, with the same output.

Exit codes: 0 ok, 1 findings or refused, 2 usage or environment error.`;

function buildProgram(io: CliIo, ctx: CommandContext, setCode: (code: ExitCode) => void): Command {
  const program = new Command(ctx.command);
  program
    .description(
      "Organize a folder from the terminal: plan, review, apply, undo — standalone or against a server.",
    )
    .version(CLI_VERSION, "-V, --version", "print the version")
    .option("--server <url>", "work against a Vetted server (or VETTED_SERVER), e.g. http://127.0.0.1:8787")
    .option("--token <token>", "the server's API token (or VETTED_API_TOKEN)")
    .addHelpText("after", EPILOG)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own errors ("error: unknown option '--x'") in the one format: `vetted: USAGE: …`.
      outputError: (text, write) => write(`vetted: USAGE: ${text.replace(/^error: /, "")}`),
    });
  for (const register of REGISTRARS) register(program, ctx, setCode);
  registerComparison(program);
  for (const command of program.commands)
    command.exitOverride().showHelpAfterError(`(run ${ctx.command} ${command.name()} --help for usage)`);
  return program;
}

/**
 * Runs `vetted` with the arguments after the program name; answers the exit code (0 ok, 1 findings or
 * refused, 2 usage or environment error). Never throws.
 */
export async function runVetted(rawArgv: readonly string[], io: CliIo): Promise<ExitCode> {
  // `pnpm dev -- organize …` passes the `--` along: it separates nothing here.
  const argv = rawArgv[0] === "--" ? rawArgv.slice(1) : rawArgv;
  let code: ExitCode = EXIT.ok;
  let program: Command | undefined;
  const ctx = createContext(io, () => program?.opts<GlobalOptions>() ?? {});
  program = buildProgram(io, ctx, (c) => {
    code = c;
  });
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.usage;
  }
  try {
    // `vetted comparison …` hands every argument to the comparison CLI untouched.
    if (argv[0] === "comparison") return await runComparison(ctx, argv.slice(1));
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok =
        err.code === "commander.helpDisplayed" ||
        err.code === "commander.version" ||
        err.code === "commander.help";
      return ok ? EXIT.ok : EXIT.usage;
    }
    io.stderr.write(`vetted: ${messageOf(err)}\n`);
    return exitCodeOf(err);
  }
}
