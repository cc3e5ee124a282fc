import { RunsError } from "../../kernel/errors.js";

/*
 * The errors of profiles and reconstruction. Their codes are listed in `RUNS_ERROR_CODES` with the others.
 */

/** A `har_path` / `html_path` outside the allowed roots and the data directory (or with `..`, or relative). */
export class PathOutsideRootError extends RunsError {
  constructor(path: string, why: string) {
    super("PATH_OUTSIDE_ROOT", `${path} may not be read: ${why}`, { path });
  }
}

/** An artifact path that names no readable file, or a session without the artifact asked for. */
export class ArtifactNotFoundError extends RunsError {
  constructor(message: string) {
    super("ARTIFACT_NOT_FOUND", message);
  }
}

/** An artifact file larger than the limit (`VETTED_MAX_BODY_BYTES` for files a request names). */
export class ArtifactTooLargeError extends RunsError {
  constructor(what: string, bytes: number, limit: number) {
    super(
      "ARTIFACT_TOO_LARGE",
      `${what} is ${bytes} bytes, over the limit of ${limit} bytes (VETTED_MAX_BODY_BYTES).`,
      {
        bytes,
        limit,
      },
    );
  }
}

/** A HAR that is not JSON or not HAR 1.2 (`details.issues` names what is missing). */
export class HarInvalidError extends RunsError {
  constructor(message: string, issues?: unknown) {
    super("HAR_INVALID", message, issues === undefined ? undefined : { issues });
  }
}

/** No stored preview with that id (`PREVIEW_NOT_FOUND`), or it is older than 24 h (`PREVIEW_EXPIRED`). */
export class PreviewUnavailableError extends RunsError {
  constructor(code: "PREVIEW_NOT_FOUND" | "PREVIEW_EXPIRED", id: string) {
    super(
      code,
      code === "PREVIEW_NOT_FOUND"
        ? `No reconstruction preview ${id}.`
        : `Reconstruction preview ${id} expired (previews are kept 24 h); make a new preview.`,
    );
  }
}
