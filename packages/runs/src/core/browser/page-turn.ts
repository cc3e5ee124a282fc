import type { CDPSession } from "playwright-core";

/** How much longer than asked a page held back by a loaded machine may keep a step waiting (ms). */
const PAGE_TURN_SLACK_MS = 1_000;

/**
 * Resolves once the page's main thread has run a timer set `ms` from now on its own clock. A page the
 * machine holds back runs its timers late, but in order: a request that a timer the step's action set
 * sends (a card form that posts 120 ms after the click) has been started before this resolves, however
 * late both run, and announced on `session` before its answer (see `ContextState.settled`). Resolves at
 * once when the page cannot be asked (it navigated away or closed) and never later than `ms` + 1 s (a page
 * stuck in a dialog or a busy loop), so it only ever lengthens a wall-clock wait.
 */
export function pageTurn(session: CDPSession, ms: number): Promise<void> {
  const expression = `new Promise((resolve) => setTimeout(resolve, ${Math.max(0, Math.round(ms))}))`;
  const asked = session.send("Runtime.evaluate", { expression, awaitPromise: true });
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms + PAGE_TURN_SLACK_MS);
  });
  const turned = asked.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([turned, cap]).finally(() => clearTimeout(timer));
}
