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
    const res = await browserOf(ctx).page.goto(step.url, { timeout: step.timeout_ms, waitUntil: "load" });
    return { kind: "completed", detail: { status: res?.status() ?? null } };
  },
};
