import type { Frame, Locator } from "playwright-core";
import type { Target } from "../../domain/browser-steps.js";
import { notFound, resolveTarget, targetDetail } from "./browser-target.js";
import type { BrowserStepContext, StepContext, StepOutcome } from "./step-type.js";

/** The run's page context; a browser step executed without one is a bug of the caller. */
export function browserOf(ctx: StepContext): BrowserStepContext {
  if (ctx.browser === undefined) throw new Error("a browser step needs the run's page");
  return ctx.browser;
}

/** The pause before acting on a page of a protected payment provider (unless approved). */
export function protectedPause(b: BrowserStepContext, url: string): StepOutcome | undefined {
  if (b.approved) return undefined;
  const domain = b.protectedDomainOf(url);
  return domain === undefined ? undefined : { kind: "protected", provider_domain: domain };
}

/**
 * Finds the target, pauses when the frame the element lives in (or the page) is a protected provider's
 * (before acting), and acts on the element found; the outcome's detail records the selector used and the fallback trail.
 */
export async function actOn(
  step: { id: string; target: Target; timeout_ms: number },
  ctx: StepContext,
  act: (locator: Locator, frame: Frame) => Promise<Record<string, unknown> | undefined>,
): Promise<StepOutcome> {
  const b = browserOf(ctx);
  const resolved = await resolveTarget(b.page, step.target, step.timeout_ms, { lazy: true });
  if (!resolved.ok) return notFound(step.id, resolved);
  // The frame that receives the action decides first (a card form in a provider's iframe), then the page.
  const paused = protectedPause(b, resolved.frame.url()) ?? protectedPause(b, b.page.url());
  if (paused !== undefined) return paused;
  let extra: Record<string, unknown> | undefined;
  try {
    extra = await act(resolved.locator, resolved.frame);
  } catch (err) {
    // A lone selector is checked by the action itself: its timeout means the element never came.
    if (!(err instanceof Error && err.name === "TimeoutError") || resolved.trail.length !== 1) throw err;
    const trail = resolved.trail.map((t) => ({ ...t, result: "no match" as const }));
    return notFound(step.id, { ok: false, trail });
  }
  return { kind: "completed", detail: { ...targetDetail(resolved), ...extra } };
}
