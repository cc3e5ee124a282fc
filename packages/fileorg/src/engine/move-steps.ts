import type { RowError } from "../domain/manifest.js";
import { confinedFs, type SourceIdentity } from "./confined-fs.js";
import { copyMoveConfined, hashConfined, identityOfFacts } from "./confined-moves.js";
import { chunk } from "./db.js";
import type { InspectPool, LinkMoveOutcome, PoolScope } from "./inspect-pool.js";
import { type JournalRecord, type JournalSigner, MoveError, tempPathFor } from "./journal.js";
import { mapLimit } from "./pool.js";

/** Moves (and pre-checks) in flight at once within a group. */
export const MOVE_CONCURRENCY = 8;

/** Where a job's moves may act: the roots of the side files leave, of the side they land, and the allowed roots. */
export interface MoveScope extends PoolScope {
  allowed: readonly string[];
  /** The directory folders are created under (the output for apply, the source for rollback). */
  folders: string;
}

/** How one journaled move ended. */
export type MoveOutcome =
  | { record: JournalRecord; state: "done"; error: null }
  | { record: JournalRecord; state: "failed"; error: RowError };

/** Moves one journaled file on the main thread (confined link + unlink, or copy + fsync + verify + link). */
export async function moveOne(
  record: JournalRecord,
  identity: SourceIdentity | null,
  scope: PoolScope,
  forceCopy: boolean,
): Promise<MoveOutcome> {
  const from = record.fromPath ?? "";
  try {
    if (!forceCopy) {
      const linked = confinedFs.linkMoveIn(scope.source, scope.target, { from, to: record.toPath, identity });
      if (linked.outcome !== "copy") return outcomeOfLink(record, linked, scope, identity);
    }
    await copyMoveConfined(
      {
        from,
        to: record.toPath,
        temp: tempPathFor(record.toPath, record.id),
        sha256: record.sha256,
        identity,
      },
      scope,
    );
    return { record, state: "done", error: null };
  } catch (err) {
    const error: RowError =
      err instanceof MoveError
        ? { code: err.code, message: err.message }
        : { code: "IO_ERROR", message: err instanceof Error ? err.message : String(err) };
    return { record, state: "failed", error };
  }
}

/** The row outcome of a confined link move (a `copy` answer takes the copy + verify path). */
async function outcomeOfLink(
  record: JournalRecord,
  answer: LinkMoveOutcome | undefined,
  scope: PoolScope,
  identity: SourceIdentity | null,
): Promise<MoveOutcome> {
  const from = record.fromPath ?? "";
  const failed = (code: RowError["code"], message: string): MoveOutcome => ({
    record,
    state: "failed",
    error: { code, message },
  });
  switch (answer?.outcome) {
    case "moved":
      return { record, state: "done", error: null };
    case "target_exists":
      return failed("TARGET_EXISTS", `Something already exists at ${record.toPath}.`);
    case "source_missing":
      return failed("SOURCE_MISSING", `${from} is gone.`);
    case "outside_root":
      return failed("OUTSIDE_ROOT", `${from} or ${record.toPath} resolves outside the roots; nothing moved.`);
    case "source_changed":
      return failed("SOURCE_CHANGED", `${from} is not the file analyzed (changed or replaced); left alone.`);
    case "copy":
      return moveOne(record, identity, scope, true);
    case "error":
      return failed("IO_ERROR", `Cannot move ${from} to ${record.toPath} (${answer.code}).`);
    default:
      return failed("IO_ERROR", `No answer for the move of ${from}.`);
  }
}

/**
 * Moves journaled files by confined link + unlink on the file threads (synchronous calls, no thread-pool
 * round trip per call; each checks its real parents and the source's identity right before it links); a
 * file whose link is refused (another device…) takes the copy + verify path here.
 */
export async function linkMovesOnThreads(
  files: InspectPool,
  records: readonly JournalRecord[],
  identities: ReadonlyMap<string, SourceIdentity | null>,
  scope: PoolScope,
): Promise<MoveOutcome[]> {
  const identity = (r: JournalRecord) => identities.get(r.rowId ?? "") ?? null;
  const parts = chunk(records, Math.max(1, Math.ceil(records.length / files.threads)));
  const answers = await Promise.all(
    parts.map((part) =>
      files.linkMoves(
        part.map((r) => ({ from: r.fromPath ?? "", to: r.toPath, identity: identity(r) })),
        { source: scope.source, target: scope.target },
      ),
    ),
  );
  return mapLimit(
    parts.flatMap((part, p) => part.map((record, i) => ({ record, answer: answers[p]?.[i] }))),
    MOVE_CONCURRENCY,
    ({ record, answer }) => outcomeOfLink(record, answer, scope, identity(record)),
  );
}

/**
 * The checks of one rollback move: the record verifies, nothing occupies the source (inside the source
 * directory), and the file at the target (read through the confined layer) still has the recorded SHA-256;
 * answers the identity of the verified file, which must still be there when it moves back.
 */
export async function checkRollback(
  record: JournalRecord,
  signer: JournalSigner,
  scope: MoveScope,
): Promise<{ error: RowError } | { identity: SourceIdentity }> {
  if (!signer.verify(record)) {
    return {
      error: {
        code: "JOURNAL_TAMPERED",
        message: "The journal record of this move does not verify; left alone.",
      },
    };
  }
  const home = confinedFs.lstatIn(scope.target, record.fromPath ?? "");
  if (home.code === "OUTSIDE_ROOT") {
    return {
      error: {
        code: "OUTSIDE_ROOT",
        message: `${record.fromPath} now resolves outside the source directory.`,
      },
    };
  }
  if (home.code !== "ENOENT") {
    return {
      error: { code: "SOURCE_OCCUPIED", message: `Something now occupies ${record.fromPath}; left alone.` },
    };
  }
  const read = await hashConfined(scope.source, record.toPath);
  if ("code" in read && read.code === "OUTSIDE_ROOT") {
    return {
      error: { code: "OUTSIDE_ROOT", message: `${record.toPath} now resolves outside the output directory.` },
    };
  }
  if (!("sha256" in read) || read.sha256 !== record.sha256) {
    return {
      error: {
        code: "HASH_MISMATCH",
        message: `${record.toPath} no longer has the recorded SHA-256; left alone.`,
      },
    };
  }
  return { identity: identityOfFacts(read.facts) };
}
