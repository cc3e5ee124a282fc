import type { Frame, Locator, Page } from "playwright-core";
import type { FrameScope, Selector, Target } from "../../domain/browser-steps.js";

type AriaRole = Parameters<Page["getByRole"]>[0];

/** One selector tried: what it matched (and in which frame, when it found something). */
export interface TrailEntry {
  index: number;
  kind: Selector["kind"];
  value: string;
  result: "matched" | "no match" | "ambiguous" | "invalid";
  count?: number;
  /** The URL of the frame the selector matched in, when it is not the main frame. */
  frame_url?: string;
  error?: string;
}

/** The frame an element was found in, as evidence records it. */
export interface FrameInfo {
  url: string;
  name: string;
  main: boolean;
}

/** The element found (by the selector at `index`, in `frame`) with the trail of candidates tried, or none. */
export type Resolved =
  | { ok: true; locator: Locator; index: number; frame: Frame; trail: TrailEntry[] }
  | { ok: false; trail: TrailEntry[] };

/** The Playwright locator of one selector candidate in one frame. */
export function locatorOf(frame: Frame, s: Selector): Locator {
  switch (s.kind) {
    case "role":
      return frame.getByRole(s.value as AriaRole, s.name === undefined ? {} : { name: s.name, exact: true });
    case "label":
      return frame.getByLabel(s.value, { exact: true });
    case "text":
      return frame.getByText(s.value, { exact: true });
    case "testid":
      return frame.getByTestId(s.value);
    case "css":
      return frame.locator(`css=${s.value}`);
    case "xpath":
      return frame.locator(`xpath=${s.value}`);
  }
}

/** The page's frames: the main frame, then its children depth first, in the order they were attached. */
export function framesInOrder(page: Page): Frame[] {
  const out: Frame[] = [];
  const walk = (frame: Frame) => {
    if (frame.isDetached()) return;
    out.push(frame);
    for (const child of frame.childFrames()) walk(child);
  };
  walk(page.mainFrame());
  return out;
}

/** Whether a child frame is the one a frame scope names. */
export function frameMatches(frame: Frame, scope: FrameScope): boolean {
  if (frame.parentFrame() === null) return false;
  if (scope.name !== undefined && frame.name() !== scope.name) return false;
  return scope.url === undefined || frame.url().includes(scope.url);
}

/** The frames a target is searched in, in order. */
function framesFor(page: Page, target: Target): Frame[] {
  const all = framesInOrder(page);
  const scope = target.frame;
  return scope === undefined ? all : all.filter((f) => frameMatches(f, scope));
}

/** The first frame where the selector finds something: exactly one element matches, more are ambiguous. */
async function trySelector(
  frames: readonly Frame[],
  s: Selector,
): Promise<{ frame: Frame; locator: Locator; count: number } | undefined> {
  for (const frame of frames) {
    const locator = locatorOf(frame, s);
    // A frame that went away while we looked finds nothing.
    const count = await locator.count().catch((err: unknown) => {
      if (frame.isDetached()) return 0;
      throw err;
    });
    if (count > 0) return { frame, locator, count };
  }
  return undefined;
}

async function tryAll(page: Page, target: Target): Promise<Resolved> {
  const trail: TrailEntry[] = [];
  const frames = framesFor(page, target);
  for (const [index, s] of target.selectors.entries()) {
    const base = { index, kind: s.kind, value: s.value };
    try {
      const found = await trySelector(frames, s);
      const where =
        found === undefined || found.frame.parentFrame() === null ? {} : { frame_url: found.frame.url() };
      if (found?.count === 1) {
        trail.push({ ...base, result: "matched", ...where });
        return { ok: true, locator: found.locator, index, frame: found.frame, trail };
      }
      trail.push({
        ...base,
        result: found === undefined ? "no match" : "ambiguous",
        count: found?.count ?? 0,
        ...where,
      });
    } catch (err) {
      const error = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
      trail.push({ ...base, result: "invalid", error });
    }
  }
  return { ok: false, trail };
}

/**
 * Finds the target's element: the selectors are tried in order, each in the main frame first and then in
 * the child frames (depth first, in the order they were attached) — or only in the frames `target.frame`
 * names — and the first that finds exactly one element wins; while none does, they are tried again until
 * `timeoutMs` has passed (the page may still be loading). The trail tells which candidates failed and why.
 * `lazy`, for a target with one selector that an action will use on a page without child frames: the
 * locator is returned unchecked (the action waits for its element).
 */
export async function resolveTarget(
  page: Page,
  target: Target,
  timeoutMs: number,
  options: { lazy?: boolean } = {},
): Promise<Resolved> {
  const [only] = target.selectors;
  const main = page.mainFrame();
  if (
    options.lazy === true &&
    target.selectors.length === 1 &&
    only !== undefined &&
    target.frame === undefined &&
    main.childFrames().length === 0
  ) {
    // No fallback nor frame to choose: the action itself waits for the element (and refuses an ambiguous one).
    const locator = locatorOf(main, only);
    return {
      ok: true,
      locator,
      index: 0,
      frame: main,
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

/** Which frame an element was found in. */
export function frameInfo(frame: Frame): FrameInfo {
  return { url: frame.url(), name: frame.name(), main: frame.parentFrame() === null };
}

/** The detail a step records about how its target was found (selector, frame, fallback trail). */
export function targetDetail(resolved: Resolved): Record<string, unknown> {
  return {
    ...(resolved.ok ? { selector_index: resolved.index, frame: frameInfo(resolved.frame) } : {}),
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
