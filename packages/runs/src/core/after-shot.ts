import type { CDPSession, Page } from "playwright-core";
import { captureJpeg } from "./evidence.js";

/**
 * Installed in the page's main world before an early capture (through the page's CDP session, as a value
 * only this session holds: no global): counts the DOM's mutations from then on, and whether an animation
 * (a CSS transition or animation, or a script's) was running.
 */
const PROBE = `(() => {
  const busy = () => document.getAnimations().some((a) => a.playState === "running");
  const s = { n: 0, busy, ran: busy() };
  s.o = new MutationObserver((records) => { s.n += records.length; });
  s.o.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  return s;
})()`;
const READ = `function () {
  this.n += this.o.takeRecords().length;
  this.o.disconnect();
  return this.n === 0 && !this.ran && !this.busy();
}`;
const PROBE_TIMEOUT_MS = 1_000;

function within<T>(p: Promise<T>, ms: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), ms);
  });
  return Promise.race([p.catch(() => otherwise), late]).finally(() => clearTimeout(timer));
}

/**
 * Counts what the page does that the engine can see without asking it: requests and navigations (a new
 * URL by `history.pushState` too) of every frame.
 */
function watchTraffic(page: Page): { seen(): number; stop(): void } {
  let seen = 0;
  const bump = () => {
    seen += 1;
  };
  page.on("request", bump);
  page.on("requestfinished", bump);
  page.on("requestfailed", bump);
  page.on("framenavigated", bump);
  return {
    seen: () => seen,
    stop() {
      page.off("request", bump);
      page.off("requestfinished", bump);
      page.off("requestfailed", bump);
      page.off("framenavigated", bump);
    },
  };
}

/** The capture a step's evidence keeps, and every capture still in flight (the page must not be acted on before). */
export interface AfterShot {
  capture: Promise<Buffer>;
  inFlight: Promise<unknown>;
}

/**
 * The "after" capture of a step whose end is a wait (`wait`: the engine's wait for the requests a page
 * sends a moment after the step's action), taken off the step's critical path. The capture is sent as soon
 * as the action has returned, so the browser takes it while the engine waits (nothing of the engine acts on
 * the page meanwhile), and it stands for the page at the end of the wait only if the page provably stayed
 * as it showed it: no request or navigation in any frame (a new URL included), no mutation of the main frame's DOM
 * and no animation running (a probe installed before the capture is sent). Otherwise, or when the probe
 * cannot tell (a masked capture paints over the page, a page without a CDP session), the capture is taken
 * again once the wait is over, as if there were no early one. What a page changes by itself without
 * touching its DOM or the network (a canvas drawn on a timer, a child frame's DOM) is not seen.
 */
export async function captureAcross(
  page: Page,
  cdp: Promise<CDPSession> | undefined,
  masked: boolean,
  wait: Promise<void>,
): Promise<AfterShot> {
  const session = masked ? undefined : await cdp?.catch(() => undefined);
  if (session === undefined) {
    await wait;
    const capture = captureJpeg(page, cdp, masked);
    return { capture, inFlight: capture.catch(() => undefined) };
  }
  const traffic = watchTraffic(page);
  // The probe is in place before the capture is asked for: a mutation it misses is in the picture.
  const probe = within(
    session
      .send("Runtime.evaluate", { expression: PROBE, objectGroup: "vetted-after-shot" })
      .then((answer) => (answer.exceptionDetails === undefined ? answer.result.objectId : undefined)),
    PROBE_TIMEOUT_MS,
    undefined,
  );
  const early = probe.then(() => captureJpeg(page, cdp, false));
  const earlyDone = early.catch(() => undefined);
  try {
    await wait;
    const objectId = await probe;
    const still =
      objectId !== undefined &&
      (await within(
        session
          .send("Runtime.callFunctionOn", { objectId, functionDeclaration: READ, returnByValue: true })
          .then((answer) => answer.exceptionDetails === undefined && answer.result.value === true),
        PROBE_TIMEOUT_MS,
        false,
      ));
    if (still && traffic.seen() === 0) return { capture: early, inFlight: earlyDone };
  } finally {
    traffic.stop();
    void session
      .send("Runtime.releaseObjectGroup", { objectGroup: "vetted-after-shot" })
      .catch(() => undefined);
  }
  const again = captureJpeg(page, cdp, false);
  return { capture: again, inFlight: Promise.all([earlyDone, again.catch(() => undefined)]) };
}
