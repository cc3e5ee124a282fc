import type { Page } from "playwright-core";
import type { BrowserLease } from "../../browser/host.js";
import { type AriaNode, parseAriaSnapshot } from "../../domain/aria-snapshot.js";
import type { ComputerUseResources } from "./resources.js";

/** The page a computer-use session acts in: its recording session's live page, or its own. */
export async function pageOf(
  r: ComputerUseResources,
  cusId: string,
  sessionId: string | null,
): Promise<Page> {
  if (sessionId !== null) return (await r.sessions.livePage(sessionId)).page;
  let pending = r.ownPages.get(cusId);
  if (pending !== undefined) {
    const lease = await pending.catch(() => undefined);
    if (lease !== undefined && !lease.signal.aborted) {
      lease.touch();
      return lease.page;
    }
  }
  pending = r.browser.acquire(cusId);
  r.ownPages.set(cusId, pending);
  pending.catch(() => r.ownPages.delete(cusId));
  return (await pending).page;
}

/** Releases the pages computer-use sessions opened for themselves. */
export async function releaseOwnPages(r: ComputerUseResources): Promise<void> {
  const leases = await Promise.all([...r.ownPages.values()].map((p) => p.catch(() => undefined)));
  r.ownPages.clear();
  await Promise.all(leases.map((l: BrowserLease | undefined) => l?.release()));
}

/** The accessibility tree of every frame of the page, as nodes tagged with their frame. */
export async function accessibilityNodes(page: Page): Promise<AriaNode[]> {
  const frames = page.frames();
  const all = await Promise.all(
    frames.map(async (frame, index) => {
      try {
        const snapshot = await frame.locator("body").ariaSnapshot({ timeout: 5_000 });
        return parseAriaSnapshot(snapshot, frame.url(), index);
      } catch {
        return [];
      }
    }),
  );
  return all.flat();
}
