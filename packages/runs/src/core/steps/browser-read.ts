import { ExtractStep, ScreenshotStep, WaitForStep } from "../../domain/browser-steps.js";
import { browserOf } from "./browser-common.js";
import { notFound, resolveTarget, targetDetail } from "./browser-target.js";
import type { StepOutcome, StepType } from "./step-type.js";

export { ExtractStep, ScreenshotStep, WaitForStep };

function timedOut(stepId: string, what: string, detail: Record<string, unknown> = {}): StepOutcome {
  return {
    kind: "failed",
    reason: "step_failed",
    message: `${stepId}: ${what}`,
    expectation: true,
    detail: { code: "WAIT_TIMEOUT", ...detail },
  };
}

/** The `wait_for` step type: waits for a visible target, a URL part, or a text on the page. */
export const waitForStep: StepType<WaitForStep> = {
  type: "wait_for",
  schema: WaitForStep,
  effect: "external",
  browser: true,
  idempotent: () => true,
  async execute(step, ctx) {
    const { page } = browserOf(ctx);
    const timeout = step.timeout_ms;
    if (step.target !== undefined) {
      const resolved = await resolveTarget(page, step.target, timeout);
      if (!resolved.ok) return notFound(step.id, resolved);
      const shown = await resolved.locator
        .waitFor({ state: "visible", timeout })
        .then(() => true)
        .catch(() => false);
      if (!shown) return timedOut(step.id, `the element did not become visible in ${timeout} ms`);
      return { kind: "completed", detail: targetDetail(resolved) };
    }
    if (step.url !== undefined) {
      const part = step.url;
      const ok = await page
        .waitForURL((u) => u.href.includes(part), { timeout, waitUntil: "load" })
        .then(() => true)
        .catch(() => false);
      if (!ok) return timedOut(step.id, `the page URL did not come to contain ${part} in ${timeout} ms`);
      return { kind: "completed", detail: { url: page.url() } };
    }
    const text = step.text ?? "";
    const ok = await page
      .getByText(text)
      .first()
      .waitFor({ state: "visible", timeout })
      .then(() => true)
      .catch(() => false);
    if (!ok) return timedOut(step.id, `the page did not show "${text}" in ${timeout} ms`);
    return { kind: "completed" };
  },
};

/** The `extract` step type: reads the target's text, or its attribute `attr`, into a var. */
export const extractStep: StepType<ExtractStep> = {
  type: "extract",
  schema: ExtractStep,
  effect: "external",
  browser: true,
  idempotent: () => true,
  async execute(step, ctx) {
    const { page } = browserOf(ctx);
    const resolved = await resolveTarget(page, step.target, step.timeout_ms);
    if (!resolved.ok) return notFound(step.id, resolved);
    const value =
      step.attr === undefined
        ? // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator: the rendered text is what a person sees
          (await resolved.locator.innerText({ timeout: step.timeout_ms })).trim()
        : await resolved.locator.getAttribute(step.attr, { timeout: step.timeout_ms });
    if (value === null) {
      return {
        kind: "failed",
        reason: "step_failed",
        message: `${step.id}: the element has no attribute ${step.attr ?? ""}`,
        expectation: true,
        detail: targetDetail(resolved),
      };
    }
    return { kind: "completed", vars: { [step.var]: value }, detail: targetDetail(resolved) };
  },
};

/** The `screenshot` step type: stores a named screenshot of the page as evidence. */
export const screenshotStep: StepType<ScreenshotStep> = {
  type: "screenshot",
  schema: ScreenshotStep,
  effect: "external",
  browser: true,
  idempotent: () => true,
  async execute(step, ctx) {
    await browserOf(ctx).screenshot(step.name);
    return { kind: "completed" };
  },
};
