import type { Page } from "playwright-core";
import { watchFrame } from "../../core/steps/browser-act.js";
import type { ActionName } from "../../domain/risk.js";
import { frameAt } from "./reach.js";

type AriaRole = Parameters<Page["getByRole"]>[0];

function text(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  return typeof v === "string" ? v : "";
}

/** Performs one proposed action in the page, waiting (bounded) for what it starts to load. */
export async function performAction(
  page: Page,
  action: { name: ActionName; args: Record<string, unknown> },
  /** `lateMs`: how long after a click in a child frame a navigation it starts is still waited for. */
  { timeoutMs, lateMs }: { timeoutMs: number; lateMs: number },
): Promise<void> {
  const { args } = action;
  const frame = frameAt(page, args.frame_index);
  const role = text(args, "role") as AriaRole;
  switch (action.name) {
    case "open":
      await page.goto(text(args, "url"), { waitUntil: "domcontentloaded", timeout: timeoutMs });
      return;
    case "click": {
      // Playwright waits for a navigation a click starts in the main frame, not in a child frame.
      const inFrame = frame.parentFrame() === null ? undefined : watchFrame(page, frame);
      try {
        await frame
          .getByRole(role, { name: text(args, "name"), exact: true })
          .first()
          .click({ timeout: timeoutMs });
        await inFrame?.settle(timeoutMs, lateMs);
      } finally {
        inFrame?.dispose();
      }
      break;
    }
    case "type":
      await frame
        .getByRole(role, { name: text(args, "field"), exact: true })
        .first()
        .fill(text(args, "text"), { timeout: timeoutMs });
      break;
    case "select":
      await frame
        .getByRole(role, { name: text(args, "field"), exact: true })
        .first()
        .selectOption(text(args, "option"), { timeout: timeoutMs });
      break;
    case "press":
      await page.keyboard.press(text(args, "key"));
      break;
    case "scroll":
      await page.mouse.wheel(0, (text(args, "direction") === "up" ? -1 : 1) * Number(args.pixels ?? 600));
      break;
    case "wait":
    case "read":
      break;
  }
  await page.waitForLoadState("domcontentloaded", { timeout: 5_000 }).catch(() => undefined);
}
