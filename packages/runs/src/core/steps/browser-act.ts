import type { Frame, Page, Request } from "playwright-core";
import { ClickStep, lateRequestWindowMs, SelectStep, TypeStep } from "../../domain/browser-steps.js";
import { actOn, browserOf } from "./browser-common.js";
import type { StepType } from "./step-type.js";

export { ClickStep, SelectStep, TypeStep };

/** The attribute marking a field a step filled with a secret or a code (masked in screenshots). */
export const SECRET_MARK = "data-vetted-secret";

/** How long after a click in a child frame a navigation of that frame is still waited for (ms). */
const FRAME_NAVIGATION_GRACE_MS = 150;

/**
 * Watches a child frame for a navigation its click starts: `settle` waits for one that began (or begins
 * within the grace, {@link FRAME_NAVIGATION_GRACE_MS} by default) to load; a click that navigates nothing
 * costs the grace.
 */
export function watchFrame(page: Page, frame: Frame) {
  let started = false;
  let navigated: () => void = () => undefined;
  const committed = new Promise<void>((resolve) => {
    navigated = resolve;
  });
  const onRequest = (request: Request) => {
    try {
      if (request.isNavigationRequest() && request.frame() === frame) started = true;
    } catch {
      // a service worker's request has no frame
    }
  };
  const onNavigated = (f: Frame) => {
    if (f === frame) navigated();
  };
  page.on("request", onRequest);
  page.on("framenavigated", onNavigated);
  return {
    async settle(timeoutMs: number, graceMs = FRAME_NAVIGATION_GRACE_MS): Promise<void> {
      const grace = new Promise<"quiet">((resolve) => setTimeout(() => resolve("quiet"), graceMs));
      const first = await Promise.race([committed.then(() => "navigated" as const), grace]);
      if (first === "quiet" && !started) return;
      const limit = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs));
      await Promise.race([committed, limit]);
      if (!frame.isDetached())
        await frame.waitForLoadState("load", { timeout: timeoutMs }).catch(() => undefined);
    },
    dispose(): void {
      page.off("request", onRequest);
      page.off("framenavigated", onNavigated);
    },
  };
}

/** The `click` step type: clicks the target, then waits for a page it opened to load. */
export const clickStep: StepType<ClickStep> = {
  type: "click",
  schema: ClickStep,
  effect: "external",
  browser: true,
  idempotent: () => false,
  execute: (step, ctx) =>
    actOn(step, ctx, async (locator, frame) => {
      const page = browserOf(ctx).page;
      // Playwright waits for a navigation the click starts in the main frame, not in a child frame.
      const inFrame = frame.parentFrame() === null ? undefined : watchFrame(page, frame);
      try {
        await locator.click({ timeout: step.timeout_ms });
        await page.waitForLoadState("load", { timeout: step.timeout_ms });
        const approved = browserOf(ctx).approved;
        await inFrame?.settle(step.timeout_ms, approved ? lateRequestWindowMs(step, true) : undefined);
      } finally {
        inFrame?.dispose();
      }
      return undefined;
    }),
};

/** The `type` step type: fills the target with the value (its screenshots are skipped when it is a secret). */
export const typeStep: StepType<TypeStep> = {
  type: "type",
  schema: TypeStep,
  effect: "external",
  browser: true,
  idempotent: () => true,
  execute: (step, ctx) =>
    actOn(step, ctx, async (locator) => {
      await locator.fill(step.value, { timeout: step.timeout_ms });
      // Later screenshots mask the field that holds a secret or a code.
      if (browserOf(ctx).holdsSecret)
        await locator.evaluate((el, mark) => el.setAttribute(mark, ""), SECRET_MARK);
      return undefined;
    }),
};

/** The `select` step type: picks an option (by value or label) in the target `<select>`. */
export const selectStep: StepType<SelectStep> = {
  type: "select",
  schema: SelectStep,
  effect: "external",
  browser: true,
  idempotent: () => true,
  execute: (step, ctx) =>
    actOn(step, ctx, async (locator) => {
      const picked = await locator.selectOption(step.option, { timeout: step.timeout_ms });
      return { selected: picked };
    }),
};
