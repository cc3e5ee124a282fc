import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { StorageState } from "../../core/browser/host-api.js";
import { sessionDir } from "./artifacts.js";
import { attachRecorder } from "./recorder.js";
import type { LiveSession, SessionsResources } from "./resources.js";

/** A context opened ahead for the next session: its id, and the lease with HAR and recorder running. */
export interface Prepared {
  id: string;
  live: LiveSession;
}

/**
 * Opens a recording context for a new session id (HAR under its directory, recorder attached), waiting at
 * most the host's session `waitMs` (or `ahead.waitMs`) for a slot, then `BROWSER_BUSY`. A spare (`ahead`)
 * gives its slot up to anyone who would wait for one.
 */
export async function prepareContext(
  r: SessionsResources,
  storageState?: StorageState,
  ahead?: { waitMs?: number },
): Promise<Prepared> {
  const id = r.newId("ss");
  const dir = sessionDir(r.dataDir, id);
  mkdirSync(dir, { recursive: true });
  const lease = await r.browser.acquire(id, {
    storageState,
    recordHar: { path: join(dir, "session.har"), content: "embed" },
    purpose: "session",
    ...(ahead === undefined ? {} : { spare: true, waitMs: ahead.waitMs }),
  });
  try {
    const recorder = await attachRecorder(lease.context, lease.page, r.now, () => lease.touch());
    return { id, live: { lease, recorder, finishing: undefined } };
  } catch (err) {
    await lease.release();
    throw err;
  }
}

/**
 * A prepared context for a session without `storage_state_from`: the spare opened after the previous start
 * when it is still alive (a warm start skips creating the context), else a fresh one. The caller refills
 * the spare ({@link refillSpare}) once its session has started, so preparing the next context does not
 * compete with this start's navigation; an unused spare is closed by the host's idle timeout like any lease,
 * or as soon as another acquire would wait for its slot.
 */
export async function takePrepared(r: SessionsResources): Promise<Prepared> {
  const spare = r.spare;
  r.spare = undefined;
  if (spare !== undefined) {
    const ready = await spare.catch(() => undefined);
    if (ready !== undefined && !ready.live.lease.signal.aborted) {
      ready.live.lease.adopt();
      return ready;
    }
  }
  return prepareContext(r);
}

/** Prepares the next spare context in the background (when `warmSpare` and none is there). */
export function refillSpare(r: SessionsResources): void {
  if (!r.warmSpare || r.closed || r.spare !== undefined) return;
  // Only into a slot free now: a spare never queues ahead of work that needs a context.
  const pending = prepareContext(r, undefined, { waitMs: 0 });
  pending.catch((err: unknown) => {
    if (r.spare === pending) r.spare = undefined;
    r.onError("could not prepare a spare session context", err);
  });
  r.spare = pending;
}

/** Opens the spare context ahead of the next session (when `warmSpare`), and waits until it is ready. */
export async function warmUp(r: SessionsResources): Promise<void> {
  if (!r.warmSpare || r.closed) return;
  if (r.spare === undefined) {
    const pending = prepareContext(r, undefined, {});
    r.spare = pending;
    pending.catch(() => {
      if (r.spare === pending) r.spare = undefined;
    });
  }
  await r.spare;
}

/** Closes the spare context, if any. */
export async function releaseSpare(r: SessionsResources): Promise<void> {
  const spare = r.spare;
  r.spare = undefined;
  const ready = await spare?.catch(() => undefined);
  await ready?.live.lease.release();
}
