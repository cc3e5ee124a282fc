import { confirm, isCancel } from "@clack/prompts";
import type { CommandContext } from "../context.js";
import { refused } from "../exit.js";

/** The code of a refusal to act without a confirmation nobody could give (no terminal, no `--yes`). */
export const CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED";

/**
 * Asks a yes/no question on the terminal (on stderr, so stdout stays clean for `--json`). Without a
 * terminal to ask on — stdin not a TTY (a pipe, a script) or stderr not a TTY (the question would not be
 * seen) — it never waits: it refuses (exit 1, `CONFIRMATION_REQUIRED`) pointing at `--yes`.
 */
export async function confirmOrRefuse(ctx: CommandContext, message: string): Promise<boolean> {
  if (ctx.io.stdin.isTTY !== true || ctx.io.stderr.isTTY !== true) {
    throw refused(
      `${message} — there is no terminal to confirm on; pass --yes to go ahead without asking`,
      CONFIRMATION_REQUIRED,
    );
  }
  const answer = await confirm({ message, input: ctx.io.stdin, output: ctx.io.stderr, initialValue: false });
  return !isCancel(answer) && answer;
}
