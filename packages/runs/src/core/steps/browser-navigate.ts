import type { Page } from "playwright-core";
import { NavigateStep } from "../../domain/browser-steps.js";
import { browserOf } from "./browser-common.js";
import type { StepType } from "./step-type.js";

export { NavigateStep };

/** The `navigate` step type: opens an http(s) URL (a protected provider pauses before, by `targets`). */
export const navigateStep: StepType<NavigateStep> = {
  type: "navigate",
  schema: NavigateStep,
  effect: "external",
  browser: true,
  targets: (step) => [step.url],
  idempotent: () => true,
  async execute(step, ctx) {
    if (!/^https?:\/\//i.test(step.url)) {
      return {
        kind: "failed",
        reason: "step_failed",
        message: `${step.id}: the URL must be absolute http(s)`,
        expectation: false,
      };
    }
    const res = await gotoPastErrorPage(browserOf(ctx).page, step.url, step.timeout_ms);
    return { kind: "completed", detail: { status: res?.status() ?? null } };
  },
};

/**
 * Opens `url`. When the guard stops the navigation, Chromium commits its error page a moment after `goto`
 * rejects; that late commit would cut short the next navigation of this page (a run paused at a protected
 * provider keeps its page, and a person may resume it at once), so the step waits for it first.
 */
async function gotoPastErrorPage(page: Page, url: string, timeout: number) {
  try {
    return await page.goto(url, { timeout, waitUntil: "load" });
  } catch (err) {
    if (err instanceof Error && err.message.includes("net::ERR_BLOCKED_BY_CLIENT")) {
      const errorPage = (u: URL) => u.protocol === "chrome-error:";
      await page.waitForURL(errorPage, { timeout: 2_000, waitUntil: "commit" }).catch(() => undefined);
    }
    throw err;
  }
}
