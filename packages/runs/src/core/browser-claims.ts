import type { Step } from "../domain/steps.js";
import { stepTypeOf } from "./steps/registry.js";

/** How many of the oldest claimable runs the worker looks through for one that needs no browser. */
export const BROWSERLESS_CANDIDATES = 64;

/**
 * Whether the first step from `cursor` that takes time is a browser step: the steps the claim runs in its
 * own transaction (pure ones) are skipped; a gate comes first means no (the run pauses there). The worker
 * leaves such runs queued while every browser context is held, so they never sit in its slots waiting for
 * one while a run that needs no browser waits behind them.
 */
export function needsBrowserNext(steps: readonly Step[], cursor: number): boolean {
  for (const step of steps.slice(Math.max(0, cursor))) {
    const type = stepTypeOf(step);
    if (type.effect === "pure") continue;
    return type.browser === true;
  }
  return false;
}

const browserFlows = new WeakMap<readonly Step[], boolean>();

/**
 * Whether any of the run's steps is a browser step (remembered per steps array): only such a run ever has
 * a page, so only such a run can have a saved browser state to forget when it ends.
 */
export function usesBrowser(steps: readonly Step[]): boolean {
  let uses = browserFlows.get(steps);
  if (uses === undefined) {
    uses = steps.some((step) => stepTypeOf(step).browser === true);
    browserFlows.set(steps, uses);
  }
  return uses;
}
