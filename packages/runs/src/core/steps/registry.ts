import { isBrowserAssert } from "../../domain/browser-steps.js";
import { Step } from "../../domain/steps.js";
import { approvalGateStep } from "./approval-gate.js";
import { assertStep } from "./assert.js";
import { clickStep, selectStep, typeStep } from "./browser-act.js";
import { browserAssertStep } from "./browser-assert.js";
import { navigateStep } from "./browser-navigate.js";
import { extractStep, screenshotStep, waitForStep } from "./browser-read.js";
import { httpStep } from "./http.js";
import { inputGateStep } from "./input-gate.js";
import { otpGateStep } from "./otp-gate.js";
import { setStep } from "./set.js";
import type { StepType } from "./step-type.js";

export { Step };

import { waitStep } from "./wait.js";

/**
 * The registry: every step type by its `type`. A new step type (a browser `navigate`, `click`…) is one
 * module plus one line here and one in {@link Step}; the engine, store and server need no change.
 */
export const STEP_TYPES = {
  http: httpStep,
  set: setStep,
  wait: waitStep,
  assert: assertStep,
  otp_gate: otpGateStep,
  approval_gate: approvalGateStep,
  input_gate: inputGateStep,
  navigate: navigateStep,
  click: clickStep,
  type: typeStep,
  select: selectStep,
  wait_for: waitForStep,
  extract: extractStep,
  screenshot: screenshotStep,
} as const;

/**
 * The type module that executes `step`. `assert` has two forms under one type: the value form (pure) and
 * the browser form (`target`, `text`, `url`, `visible`), executed in the run's page.
 */
export function stepTypeOf(step: Step): StepType<Step> {
  if (step.type === "assert" && isBrowserAssert(step)) return browserAssertStep as unknown as StepType<Step>;
  return STEP_TYPES[step.type] as unknown as StepType<Step>;
}
