import { RunsError } from "../../kernel/errors.js";

/** An upstream model answered an error, garbage, or could not be reached (`details.status`: its HTTP status). */
export class UpstreamFailedError extends RunsError {
  constructor(message: string, details: { status: number | null }) {
    super("UPSTREAM_FAILED", message, details);
  }
}

/** An upstream model did not answer in time. */
export class UpstreamTimeoutError extends RunsError {
  constructor(model: string, timeoutMs: number) {
    super("UPSTREAM_TIMEOUT", `The embeddings model ${model} did not answer within ${timeoutMs} ms.`, {
      timeout_ms: timeoutMs,
    });
  }
}

/** A batch named a model that is not configured. */
export class UnknownModelError extends RunsError {
  constructor(model: string, available: readonly string[]) {
    super("MODEL_UNKNOWN", `No embeddings model ${model}; available: ${available.join(", ")}.`, {
      available,
    });
  }
}

/** Too many texts already wait for the local model's worker: try again shortly (`Retry-After`). */
export class EmbeddingsBusyError extends RunsError {
  readonly retryAfterS = 1;
  constructor(queued: number, max: number) {
    super(
      "EMBEDDINGS_BUSY",
      `The local embeddings model has ${queued} texts waiting (at most ${max}); try again in a second.`,
      { queued, max },
    );
  }
}

/** The local model's optional packages are not installed: the message names the command that installs them. */
export class EmbeddingsUnavailableError extends RunsError {
  constructor(missing: string, packages: readonly string[]) {
    super(
      "EMBEDDINGS_UNAVAILABLE",
      `The local embeddings model needs the optional package ${missing}, which is not installed: ` +
        `\`npm install ${packages.join(" ")}\` beside @vetted/runs (or configure an OpenAI-compatible model).`,
      { missing, install: `npm install ${packages.join(" ")}` },
    );
  }
}
