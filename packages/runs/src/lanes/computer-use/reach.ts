import type { Frame, Locator, Page } from "playwright-core";
import type { FieldFacts } from "../../domain/cu-secrets.js";
import type { ActionName } from "../../domain/risk.js";

/** Where an action acts and what it would reach, read from the live page. */
export interface Reach {
  /** The page's (main frame's) URL. */
  page_url: string;
  /** The URL of the frame the action acts in. */
  frame_url: string;
  /** The absolute URLs the action would send the page to (form action, `formaction`, link target). */
  targets: string[];
}

type AriaRole = Parameters<Page["getByRole"]>[0];

/**
 * Fields whose text is secret, for masking screenshots and reading what to redact: password and card
 * inputs, one-time codes, and inputs whose name or id names a card, security code or IBAN.
 */
export const CU_SECRET_FIELDS_CSS = [
  'input[type="password"]',
  'input[autocomplete^="cc-"]',
  'input[autocomplete="one-time-code"]',
  ...["card", "cvc", "cvv", "iban"].flatMap((w) => [`input[name*="${w}" i]`, `input[id*="${w}" i]`]),
].join(", ");

/** The frame an action's `frame_index` names (the main frame when it names none). */
export function frameAt(page: Page, index: unknown): Frame {
  const frames = page.frames();
  return (typeof index === "number" ? frames[index] : undefined) ?? page.mainFrame();
}

function text(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  return typeof v === "string" ? v : "";
}

/** The element an action names (role and accessible name in its frame), when it has one. */
function elementOf(
  page: Page,
  action: { name: ActionName; args: Record<string, unknown> },
): Locator | undefined {
  const frame = frameAt(page, action.args.frame_index);
  const key =
    action.name === "click" ? "name" : action.name === "type" || action.name === "select" ? "field" : "";
  if (key === "") return undefined;
  const role = text(action.args, "role") as AriaRole;
  return frame.getByRole(role, { name: text(action.args, key), exact: true }).first();
}

/** The little of the DOM the page-side readers use (this package builds without the DOM library). */
interface DomNode {
  id: string;
  tagName: string;
  href?: string;
  action?: string;
  formAction?: string;
  value?: string;
  form?: DomNode | null;
  closest(selector: string): DomNode | null;
  getAttribute(name: string): string | null;
}

/**
 * Runs in the page: the URLs a click on `node` sends the page to — the link it is in, the form it
 * submits or sits in (`form.action` is resolved, the document's URL when there is none), a `formaction`.
 */
function targetsIn(node: unknown): string[] {
  const el = node as DomNode;
  const out: string[] = [];
  const link = el.closest("a[href], area[href]");
  if (link !== null && typeof link.href === "string") out.push(link.href);
  const form = el.form ?? el.closest("form");
  if (form !== null && typeof form.action === "string") out.push(form.action);
  if (el.getAttribute("formaction") !== null && typeof el.formAction === "string") out.push(el.formAction);
  return out;
}

/** Runs in the page: the targets of the focused element of the main frame (what Enter would submit). */
function focusedTargets(): string[] {
  const doc = (globalThis as unknown as { document: { activeElement: DomNode | null } }).document;
  const el = doc.activeElement;
  if (el === null || el.tagName === "BODY") return [];
  return targetsIn(el);
}

/**
 * Reads where `action` acts and what it would reach: the page's and its frame's URL, and for a click the
 * form action / `formaction` / link target of its control (a `press` acts on the focused element),
 * resolved against the frame's URL by the browser. An element not found reaches nothing.
 */
export async function readReach(
  page: Page,
  action: { name: ActionName; args: Record<string, unknown> },
): Promise<Reach> {
  const frame = frameAt(page, action.args.frame_index);
  const reach: Reach = { page_url: page.url(), frame_url: frame.url(), targets: [] };
  let targets: string[] = [];
  if (action.name === "click") {
    const el = elementOf(page, action);
    if (el !== undefined && (await el.count()) > 0)
      targets = await el.evaluate(targetsIn, undefined, { timeout: 2_000 }).catch(() => []);
  } else if (action.name === "press") {
    targets = await page.evaluate(focusedTargets).catch(() => []);
  }
  reach.targets = [...new Set(targets)].sort();
  return reach;
}

/** Whether two readings of an action's page differ (the page, its frame or what the action reaches). */
export function reachChanged(before: Reach, now: Reach): boolean {
  return (
    before.page_url !== now.page_url ||
    before.frame_url !== now.frame_url ||
    before.targets.join("\n") !== now.targets.join("\n")
  );
}

/** What the page tells of the field a `type` action types into. */
export async function fieldFacts(
  page: Page,
  action: { name: ActionName; args: Record<string, unknown> },
): Promise<FieldFacts> {
  const name = text(action.args, "field");
  const el = elementOf(page, action);
  if (el === undefined || (await el.count()) === 0) return { name };
  const facts = await el
    .evaluate(
      (node: unknown) => {
        const el = node as DomNode;
        return {
          type: el.getAttribute("type") ?? "",
          autocomplete: el.getAttribute("autocomplete") ?? "",
          attributes: [el.getAttribute("name") ?? "", el.id],
        };
      },
      undefined,
      { timeout: 2_000 },
    )
    .catch(() => ({ type: "", autocomplete: "", attributes: [] }));
  return { name, ...facts };
}

/** The values now in the page's secret fields, in every frame (to redact from what is stored). */
export async function secretValues(page: Page): Promise<string[]> {
  const all = await Promise.all(
    page.frames().map((frame) =>
      frame
        .locator(CU_SECRET_FIELDS_CSS)
        .evaluateAll((els: unknown[]) => els.map((el) => (el as DomNode).value ?? ""))
        .catch(() => [] as string[]),
    ),
  );
  return all.flat().filter((v) => v.length > 0);
}

/** Whether a capture failed because the page navigated while it ran (its frames' contexts went away). */
function navigatedDuring(err: unknown): boolean {
  return (
    err instanceof Error && /Execution context was destroyed|Frame was detached|navigat/i.test(err.message)
  );
}

/**
 * A screenshot of the page with every secret field masked, in every frame. A page that navigates during the
 * capture is captured again once the new document has loaded (at most three tries), with its new frames masked.
 */
export async function maskedScreenshot(page: Page): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.screenshot({
        type: "png",
        mask: page.frames().map((f) => f.locator(CU_SECRET_FIELDS_CSS)),
      });
    } catch (err) {
      if (attempt >= 3 || !navigatedDuring(err)) throw err;
      await page.waitForLoadState("domcontentloaded").catch(() => undefined);
    }
  }
}
