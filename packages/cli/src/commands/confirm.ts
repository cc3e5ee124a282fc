import { confirm, isCancel } from "@clack/prompts";
import type { CommandContext } from "../context.js";
import { usageError } from "../exit.js";

/**
 * Asks a yes/no question on the terminal (on stderr, so stdout stays clean for `--json`). Without a
 * terminal there is nobody to ask: a usage error pointing at `--yes`.
 */
export async function confirmOrRefuse(ctx: CommandContext, message: string): Promise<boolean> {
  if (ctx.io.stdin.isTTY !== true) {
    throw usageError(
      `${message} — there is no terminal to confirm on; pass --yes to go ahead without asking`,
    );
  }
  const answer = await confirm({ message, input: ctx.io.stdin, output: ctx.io.stderr, initialValue: false });
  return !isCancel(answer) && answer;
}
