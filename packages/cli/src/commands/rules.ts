import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import {
  checkRulesFile,
  formatRulesFileIssue,
  type ReviewRule,
  type RulesFileOutcome,
} from "@vetted/fileorg";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, type ExitCode, usageError } from "../exit.js";
import { say } from "../io.js";
import { plural } from "../render/style.js";
import { confirmOrRefuse } from "./confirm.js";

interface RulesOptions {
  job?: string;
  yes?: boolean;
  json?: boolean;
}

/** The text of a rules file, or a usage error (exit 2) naming why it cannot be read. */
function readRulesFile(ctx: CommandContext, file: string): string {
  try {
    return readFileSync(resolve(ctx.io.cwd, file), "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw usageError(`cannot read the rules file ${file} (${reason})`, "RULES_FILE_UNREADABLE");
  }
}

/**
 * Reads and checks a rules file: its rules, or every problem on stderr (`file:line:column: rule "…" field:
 * message`) and exit 1 with the first problem's code.
 */
export function checkedRules(
  ctx: CommandContext,
  file: string,
  json: boolean,
): { text: string; rules: ReviewRule[] } {
  const text = readRulesFile(ctx, file);
  const checked = checkRulesFile(text);
  if (checked.ok) return { text, rules: checked.rules };
  const shown = relative(ctx.io.cwd, resolve(ctx.io.cwd, file)) || file;
  if (json) say(ctx.io, JSON.stringify({ ok: false, issues: checked.issues }, null, 2));
  for (const issue of checked.issues) ctx.io.stderr.write(`${formatRulesFileIssue(issue, shown)}\n`);
  const code = checked.issues[0]?.code ?? "RULES_FILE_INVALID";
  throw new CliError(`${file} has ${plural(checked.issues.length, "problem")}`, EXIT.findings, code);
}

/** `vetted rules check <file>`: exit 0 when the file is valid, 1 with every problem otherwise. */
function check(ctx: CommandContext, file: string, options: RulesOptions): ExitCode {
  const { rules } = checkedRules(ctx, file, options.json === true);
  if (options.json === true) say(ctx.io, JSON.stringify({ ok: true, rules }, null, 2));
  else say(ctx.io, `${ctx.c.green("ok")} ${file}: ${plural(rules.length, "rule")}`);
  return EXIT.ok;
}

function describeChanges(changes: RulesFileOutcome["rules"][number]["examples"][number]["changes"]): string {
  const parts = Object.entries(changes).flatMap(([field, c]) =>
    c === undefined ? [] : [`${field} ${c.from} → ${c.to}`],
  );
  return parts.length === 0 ? "no change" : parts.join("; ");
}

/** Where a rule is in its file, for people: ` (rules.yaml:12, in Scans)`. */
function whereOf(file: string, rule: RulesFileOutcome["rules"][number]): string {
  const parts = [
    ...(rule.line === undefined ? [] : [`${file}:${rule.line}`]),
    ...(rule.location === undefined ? [] : [`in ${rule.location}`]),
  ];
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** One line per rule, with its line in the file: how many rows of the plan it changed (organize --rules). */
export function renderRulesApplied(ctx: CommandContext, file: string, outcome: RulesFileOutcome): string {
  const lines = [
    `${ctx.c.bold("Rules")} from ${file} changed ${plural(outcome.changed_count, "row")} (plan revision ${outcome.revision}):`,
  ];
  for (const rule of outcome.rules)
    lines.push(
      `  ${rule.name}${whereOf(file, rule)}: changed ${plural(rule.changed, "row")} (matched ${rule.matched})`,
    );
  return lines.join("\n");
}

/** Per-rule counts and a few example rows, for people. */
function renderOutcome(ctx: CommandContext, file: string, outcome: RulesFileOutcome): string {
  const lines: string[] = [];
  for (const rule of outcome.rules) {
    lines.push(
      `${ctx.c.bold(rule.name)}${whereOf(file, rule)}: matches ${plural(rule.matched, "row")}, ${outcome.applied ? "changed" : "would change"} ${rule.changed}`,
    );
    for (const example of rule.examples)
      lines.push(`  ${example.source_path}: ${describeChanges(example.changes)}`);
  }
  const verb = outcome.applied ? "changed" : "would change";
  lines.push(
    `${plural(outcome.matched_count, "row")} matched, ${outcome.changed_count} ${verb} (plan revision ${outcome.revision}).`,
  );
  return lines.join("\n");
}

function jobOf(options: RulesOptions): string {
  if (options.job === undefined || options.job === "") throw usageError("--job <id> names the analyze job");
  return options.job;
}

/** `vetted rules sim <file> --job <id>`: what each rule would change in the plan; writes nothing. */
async function sim(ctx: CommandContext, file: string, options: RulesOptions): Promise<ExitCode> {
  const jobId = jobOf(options);
  const { text } = checkedRules(ctx, file, options.json === true);
  return ctx.withBackend(async (backend) => {
    const outcome = await backend.simulateRulesFile(jobId, text);
    say(ctx.io, options.json === true ? JSON.stringify(outcome, null, 2) : renderOutcome(ctx, file, outcome));
    if (options.json !== true) say(ctx.io, "Simulation: nothing was changed.");
    return EXIT.ok;
  });
}

/**
 * `vetted rules run <file> --job <id>`: applies the rules to the plan (one revision, all rules or none),
 * after a confirmation (or `--yes`; without a terminal it refuses). Nothing moves until `vetted apply`.
 */
async function run(ctx: CommandContext, file: string, options: RulesOptions): Promise<ExitCode> {
  const jobId = jobOf(options);
  const { text } = checkedRules(ctx, file, options.json === true);
  return ctx.withBackend(async (backend) => {
    if (options.yes !== true) {
      const preview = await backend.simulateRulesFile(jobId, text);
      if (options.json !== true) ctx.io.stderr.write(`${renderOutcome(ctx, file, preview)}\n`);
      const question = `Change ${plural(preview.changed_count, "row")} of the plan of ${jobId}?`;
      if (!(await confirmOrRefuse(ctx, question))) {
        say(ctx.io, "Nothing was changed.");
        return EXIT.findings;
      }
    }
    const outcome = await backend.runRulesFile(jobId, text);
    if (options.json === true) say(ctx.io, JSON.stringify(outcome, null, 2));
    else {
      say(ctx.io, renderOutcome(ctx, file, outcome));
      say(
        ctx.io,
        `Nothing moved yet: review with ${ctx.command} review ${jobId}, then ${ctx.command} apply ${jobId}.`,
      );
    }
    return EXIT.ok;
  });
}

/** Registers `rules check|sim|run`. */
export function registerRules(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  const rules = program
    .command("rules")
    .description("Review rules kept in a YAML file: check it, simulate it on a plan, run it on a plan");
  rules
    .command("check")
    .description("Check a rules file: exit 0 when valid, 1 with each problem's rule, field, line and column")
    .argument("<file>", "the rules file (YAML)")
    .option("--json", "print {ok, rules} or {ok, issues} as JSON")
    .action((file: string, options: RulesOptions) => done(check(ctx, file, options)));
  rules
    .command("sim")
    .description(
      "Simulate a rules file on an analyze job's plan: per-rule counts and example rows; writes nothing",
    )
    .argument("<file>", "the rules file (YAML)")
    .requiredOption("--job <id>", "the analyze job")
    .option("--json", "print the outcome as JSON")
    .action(async (file: string, options: RulesOptions) => done(await sim(ctx, file, options)));
  rules
    .command("run")
    .description("Apply a rules file to an analyze job's plan (one revision; nothing moves until `apply`)")
    .argument("<file>", "the rules file (YAML)")
    .requiredOption("--job <id>", "the analyze job")
    .option("-y, --yes", "do not ask before changing the plan")
    .option("--json", "print the outcome as JSON")
    .action(async (file: string, options: RulesOptions) => done(await run(ctx, file, options)));
}
