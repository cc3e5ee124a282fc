import { randomUUID } from "node:crypto";
import { runTransaction } from "@vetted/store";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { InboxFile } from "../../domain/inbox-batch.js";
import { inboxSeen } from "../../store/review-schema.js";
import { chunk } from "../db.js";
import { inboxBatchId } from "../stable-ids.js";
import type { InboxResources } from "./resources.js";

type Res = InboxResources<{ job_id: string }>;

/** A batch's files an autopilot pass took for itself, under a claim id no other pass shares. */
export interface Claim {
  claimId: string;
  batchId: string;
  files: InboxFile[];
}

/**
 * Takes the files of a batch that no one took yet, in one statement per 500 files (atomic across
 * processes sharing the database): each file is remembered as seen under this claim unless it already is
 * with the same size and mtime. Answers the files this pass now owns (none when another pass — in this
 * process or another — was first).
 */
export async function claimFiles(
  res: Res,
  watchSourceId: string,
  files: readonly InboxFile[],
): Promise<Claim> {
  const claimId = `claim_${randomUUID()}`;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const owned: InboxFile[] = [];
  const now = res.clock();
  for (const part of chunk(files, 500)) {
    const taken = await runTransaction(res.options.db, (tx) =>
      tx
        .insert(inboxSeen)
        .values(
          part.map((f) => ({
            watchSourceId,
            path: f.path,
            size: f.size,
            mtime: f.mtime,
            batchId: claimId,
            jobId: null,
            analyzedAt: now,
          })),
        )
        .onConflictDoUpdate({
          target: [inboxSeen.watchSourceId, inboxSeen.path],
          set: {
            size: sql`excluded.size`,
            mtime: sql`excluded.mtime`,
            batchId: claimId,
            jobId: null,
            analyzedAt: now,
          },
          // A file seen with the same size and mtime is someone else's (or already analyzed): not ours.
          setWhere: sql`${inboxSeen.size} != excluded.size OR ${inboxSeen.mtime} != excluded.mtime`,
        })
        .returning({ path: inboxSeen.path }),
    );
    for (const t of taken) {
      const f = byPath.get(t.path);
      if (f !== undefined) owned.push(f);
    }
  }
  owned.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { claimId, batchId: inboxBatchId(owned) ?? claimId, files: owned };
}

/** Records the analyze job of a claim (its files now count as analyzed by that job). */
export async function settleClaim(
  res: Res,
  watchSourceId: string,
  claim: Claim,
  jobId: string,
): Promise<void> {
  await runTransaction(res.options.db, (tx) =>
    tx
      .update(inboxSeen)
      .set({ batchId: claim.batchId, jobId })
      .where(and(eq(inboxSeen.watchSourceId, watchSourceId), eq(inboxSeen.batchId, claim.claimId))),
  );
}

/** Gives a claim's files back (its analyze could not start): the next pass or scan offers them again. */
export async function releaseClaim(res: Res, watchSourceId: string, claim: Claim): Promise<void> {
  await runTransaction(res.options.db, async (tx) => {
    for (const part of chunk(
      claim.files.map((f) => f.path),
      500,
    )) {
      await tx
        .delete(inboxSeen)
        .where(
          and(
            eq(inboxSeen.watchSourceId, watchSourceId),
            eq(inboxSeen.batchId, claim.claimId),
            inArray(inboxSeen.path, part),
          ),
        );
    }
  });
}
