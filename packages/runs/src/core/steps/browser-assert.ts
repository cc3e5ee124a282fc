import type { AssertStep } from "../../domain/steps.js";
import { assertStep } from "./assert.js";
import { browserOf } from "./browser-common.js";
import { resolveTarget, targetDetail } from "./browser-target.js";
import type { StepOutcome, StepType } from "./step-type.js";

const DEFAULT_TIMEOUT_MS = 5_000;

async function check(step: AssertStep, ctx: Parameters<StepType<AssertStep>["execute"]>[1]) {
  const { page } = browserOf(ctx);
  const problems: string[] = [];
  let detail: Record<string, unknown> = {};
  if (step.url !== undefined && !page.url().includes(step.url)) {
    problems.push(`the page URL ${page.url()} does not contain ${step.url}`);
  }
  if (step.target !== undefined) {
    const resolved = await resolveTarget(page, step.target, 0);
    detail = targetDetail(resolved);
    if (!resolved.ok) {
      if (step.visible !== false) problems.push("no selector found the element");
    } else {
      if (step.visible !== undefined && (await resolved.locator.isVisible()) !== step.visible) {
        problems.push(`the element is ${step.visible ? "not visible" : "visible"}`);
      }
      // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator: the rendered text is what a person sees
      if (step.text !== undefined && !(await resolved.locator.innerText()).includes(step.text)) {
        problems.push(`the element's text does not contain "${step.text}"`);
      }
    }
  } else if (step.text !== undefined) {
    // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator: the rendered text is what a person sees
    const body = await page.locator("body").innerText();
    if (!body.includes(step.text)) problems.push(`the page does not show "${step.text}"`);
  }
  return { problems, detail };
}

/**
 * The browser form of the `assert` step type (`target`, `text`, `url`, `visible`): checks the run's page,
 * again and again until the check holds or `timeout_ms` (default 5 s) has passed.
 */
export const browserAssertStep: StepType<AssertStep> = {
  type: "assert",
  schema: assertStep.schema,
  effect: "external",
  browser: true,
  idempotent: () => true,
  async execute(step, ctx): Promise<StepOutcome> {
    const deadline = Date.now() + (step.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    let result = await check(step, ctx);
    while (result.problems.length > 0 && Date.now() < deadline) {
      await browserOf(ctx).page.waitForTimeout(100);
      result = await check(step, ctx);
    }
    if (result.problems.length === 0) return { kind: "completed", detail: result.detail };
    return {
      kind: "failed",
      reason: "assertion_failed",
      message: step.message ?? `assertion ${step.id} did not hold: ${result.problems.join("; ")}`,
      expectation: true,
      detail: result.detail,
    };
  },
};
