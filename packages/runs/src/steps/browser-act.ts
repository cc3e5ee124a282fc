import { ClickStep, SelectStep, TypeStep } from "../domain/browser-steps.js";
import { actOn, browserOf } from "./browser-common.js";
import type { StepType } from "./step-type.js";

export { ClickStep, SelectStep, TypeStep };

/** The attribute marking a field a step filled with a secret or a code (masked in screenshots). */
export const SECRET_MARK = "data-vetted-secret";

/** The `click` step type: clicks the target, then waits for a page it opened to load. */
export const clickStep: StepType<ClickStep> = {
  type: "click",
  schema: ClickStep,
  effect: "external",
  browser: true,
  idempotent: () => false,
  execute: (step, ctx) =>
    actOn(step, ctx, async (locator, frame) => {
      await locator.click({ timeout: step.timeout_ms });
      await browserOf(ctx).page.waitForLoadState("load", { timeout: step.timeout_ms });
      // A click inside a child frame may load a page in that frame (a frame the page replaced is gone).
      if (frame.parentFrame() !== null && !frame.isDetached())
        await frame.waitForLoadState("load", { timeout: step.timeout_ms }).catch(() => undefined);
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
