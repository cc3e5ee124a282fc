import { and, eq, gte, inArray, isNotNull } from "drizzle-orm";
import { isOwnerGone, ownerOfToken } from "../kernel/owner-process.js";
import { runs } from "../store/schema.js";
import type { RunsResources } from "./resources.js";
import { isOwnLease } from "./step-guard.js";

/**
 * The lease tokens, among `tokens`, whose owner process is provably gone (see `isOwnerGone`): never this
 * worker's, never a live process's, never another host's (those wait for their lease to run out).
 */
export function goneOwners(tokens: readonly string[], workerId: string): string[] {
  const verdicts = new Map<string, boolean>();
  return tokens.filter((token) => {
    if (isOwnLease(token, workerId)) return false;
    const hash = token.lastIndexOf("#");
    const worker = hash < 0 ? token : token.slice(0, hash);
    let gone = verdicts.get(worker);
    if (gone === undefined) {
      gone = isOwnerGone(ownerOfToken(token));
      verdicts.set(worker, gone);
    }
    return gone;
  });
}

/**
 * Ends, at once, the live leases of running runs whose owner process is gone (a server killed and
 * restarted, a peer on this host that died): the runs become claimable as if their lease had run out, and
 * are claimed the usual way (a step left in flight is in doubt, as after any expiry). A compare-and-set on
 * the dead owner's token: a run claimed meanwhile keeps its new lease. Answers the ids of the runs freed.
 */
export async function releaseGoneOwners(r: RunsResources): Promise<string[]> {
  const at = r.now();
  const held = await r.db
    .selectDistinct({ owner: runs.leaseOwner })
    .from(runs)
    .where(and(eq(runs.status, "running"), isNotNull(runs.leaseOwner), gte(runs.leaseExpiresAt, at)));
  const gone = goneOwners(
    held.flatMap((h) => (h.owner === null ? [] : [h.owner])),
    r.workerId,
  );
  if (gone.length === 0) return [];
  const freed = await r.write((tx) =>
    tx
      .update(runs)
      .set({ leaseExpiresAt: 0 })
      .where(and(eq(runs.status, "running"), inArray(runs.leaseOwner, gone)))
      .returning({ id: runs.id }),
  );
  return freed.map((f) => f.id);
}
