import type { Locator, Page } from "playwright-core";
import type { Selector, Target } from "../domain/browser-steps.js";

type AriaRole = Parameters<Page["getByRole"]>[0];

/** One selector tried: what it matched. */
export interface TrailEntry {
  index: number;
  kind: Selector["kind"];
  value: string;
  result: "matched" | "no match" | "ambiguous" | "invalid";
  count?: number;
  error?: string;
}

/** The element found (by the selector at `index`) with the trail of candidates tried, or none. */
export type Resolved =
  | { ok: true; locator: Locator; index: number; trail: TrailEntry[] }
  | { ok: false; trail: TrailEntry[] };

/** The Playwright locator of one selector candidate. */
export function locatorOf(page: Page, s: Selector): Locator {
  switch (s.kind) {
    case "role":
      return page.getByRole(s.value as AriaRole, s.name === undefined ? {} : { name: s.name, exact: true });
    case "label":
      return page.getByLabel(s.value, { exact: true });
    case "text":
      return page.getByText(s.value, { exact: true });
    case "testid":
      return page.getByTestId(s.value);
    case "css":
      return page.locator(`css=${s.value}`);
    case "xpath":
      return page.locator(`xpath=${s.value}`);
  }
}

async function tryAll(page: Page, target: Target): Promise<Resolved> {
  const trail: TrailEntry[] = [];
  for (const [index, s] of target.selectors.entries()) {
    const base = { index, kind: s.kind, value: s.value };
    try {
      const locator = locatorOf(page, s);
      const count = await locator.count();
      if (count === 1) {
        trail.push({ ...base, result: "matched" });
        return { ok: true, locator, index, trail };
      }
      trail.push({ ...base, result: count === 0 ? "no match" : "ambiguous", count });
    } catch (err) {
      const error = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
      trail.push({ ...base, result: "invalid", error });
    }
  }
  return { ok: false, trail };
}

/**
 * Finds the target's element: the selectors are tried in order and the first that matches exactly one
 * element wins; while none does, they are tried again until `timeoutMs` has passed (the page may still
 * be loading). The trail tells which candidates failed and why. `lazy`, for a target with one selector
 * that an action will use: the locator is returned unchecked (the action waits for its element).
 */
export async function resolveTarget(
  page: Page,
  target: Target,
  timeoutMs: number,
  options: { lazy?: boolean } = {},
): Promise<Resolved> {
  const [only] = target.selectors;
  if (options.lazy === true && target.selectors.length === 1 && only !== undefined) {
    // No fallback to choose: the action itself waits for the element (and refuses an ambiguous one).
    const locator = locatorOf(page, only);
    return {
      ok: true,
      locator,
      index: 0,
      trail: [{ index: 0, kind: only.kind, value: only.value, result: "matched" }],
    };
  }
  const deadline = Date.now() + timeoutMs;
  let last = await tryAll(page, target);
  while (!last.ok && Date.now() < deadline) {
    await page.waitForTimeout(Math.min(100, Math.max(1, deadline - Date.now())));
    last = await tryAll(page, target);
  }
  return last;
}

/** The detail a step records about how its target was found. */
export function targetDetail(resolved: Resolved): Record<string, unknown> {
  return {
    ...(resolved.ok ? { selector_index: resolved.index } : {}),
    fallback: resolved.ok && resolved.index > 0,
    selector_trail: resolved.trail,
  };
}

/** A failed outcome for a target no selector found. */
export function notFound(stepId: string, resolved: Resolved) {
  const tried = resolved.trail.map((t) => `${t.kind}=${t.value} (${t.result})`).join(", ");
  return {
    kind: "failed" as const,
    reason: "step_failed" as const,
    message: `${stepId}: no selector found the element: ${tried}`,
    expectation: true,
    detail: { code: "ELEMENT_NOT_FOUND", ...targetDetail(resolved) },
  };
}
