/** Exit codes of `vetted`: 0 ok, 1 findings or refused, 2 usage or environment error. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;
/** An exit code of `vetted`. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Ends a command with a message on stderr and an exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A usage mistake (a bad argument or option): exit 2. */
export function usageError(message: string, code = "USAGE"): CliError {
  return new CliError(message, EXIT.usage, code);
}

/** Something the engine or server refused (exit 1), e.g. JOB_BUSY or PLAN_CHANGED. */
export function refused(message: string, code = "REFUSED"): CliError {
  return new CliError(message, EXIT.findings, code);
}
