import type { Locator, Page } from "@playwright/test";
import { startTestSite, type TestSite } from "../../../packages/runs/src/testing/test-site.js";
import { expect, expectAccessible, type TestServer, test } from "./harness.js";

let site: TestSite;
test.beforeAll(async () => {
  site = await startTestSite();
});
test.afterAll(async () => {
  await site.close();
});

/** A run of a flow that opens the takeover page and waits at an approval gate before a step needing the click. */
async function pausedRun(server: TestServer): Promise<string> {
  const flow = await server.api<{ id: string }>("POST", "/api/flows", {
    name: "Press by hand",
    steps: [
      { id: "open", type: "navigate", url: `${site.url}/takeover` },
      { id: "person", type: "approval_gate", prompt: "Press the button by hand" },
      { id: "clicked", type: "assert", text: "Clicked by hand" },
    ],
  });
  const run = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: flow.id });
  return run.id;
}

/** Clicks the page's button (at 100..300, 100..200 on the page) through the (scaled) live picture. */
async function clickPageButton(picture: Locator): Promise<void> {
  const box = await picture.boundingBox();
  const frame = await picture.evaluate((el: HTMLImageElement) => ({
    w: Number(el.getAttribute("width")),
    h: Number(el.getAttribute("height")),
  }));
  if (box === null) throw new Error("the live picture has no box");
  await picture.click({ position: { x: (200 * box.width) / frame.w, y: (150 * box.height) / frame.h } });
}

/** Opens the run's page and waits for its gate and its live picture. */
async function openAtGate(page: Page, runId: string): Promise<Locator> {
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-status")).toHaveText("waiting_user", { timeout: 60_000 });
  const picture = page.getByRole("img", { name: "The run's page now" });
  await expect(picture).toBeVisible({ timeout: 10_000 });
  return picture;
}

/**
 * A browser run waits at an approval gate on a page with a button. In the console the person sees the live
 * page, takes control, clicks the button on the picture (by its coordinates on the page), hands back and
 * approves: the run finishes in the same page, whose state the click changed.
 */
test("take over a paused browser from its gate, click by hand, hand back and finish", async ({
  page,
  server,
}) => {
  test.setTimeout(180_000);
  const flow = await server.api<{ id: string }>("POST", "/api/flows", {
    name: "Press by hand",
    steps: [
      { id: "open", type: "navigate", url: `${site.url}/takeover` },
      { id: "person", type: "approval_gate", prompt: "Press the button by hand" },
      { id: "clicked", type: "assert", text: "Clicked by hand" },
    ],
  });
  const run = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: flow.id });
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId("run-status")).toHaveText("waiting_user", { timeout: 60_000 });
  const picture = page.getByRole("img", { name: "The run's page now" });
  await expect(picture).toBeVisible({ timeout: 10_000 });
  await expectAccessible(page);

  await page.getByRole("button", { name: "Take control" }).click();
  await expect(page.getByRole("button", { name: "Hand back", exact: true })).toBeVisible();
  // The button sits at (100..300, 100..200) on the page: click its middle on the (scaled) picture.
  const box = await picture.boundingBox();
  const size = await picture.evaluate((el: HTMLImageElement) => ({ w: el.width, h: el.height }));
  const frame = await picture.evaluate((el: HTMLImageElement) => ({
    w: Number(el.getAttribute("width")),
    h: Number(el.getAttribute("height")),
  }));
  if (box === null) throw new Error("the live picture has no box");
  expect(size.w).toBeGreaterThan(0);
  await picture.click({ position: { x: (200 * box.width) / frame.w, y: (150 * box.height) / frame.h } });
  await expect(page.getByTestId("events")).toContainText("takeover_input", { timeout: 10_000 });
  await page.getByRole("button", { name: "Hand back", exact: true }).click();
  await expect(page.getByRole("button", { name: "Take control" })).toBeVisible();
  // Handed back alone, the one-button action is gone with the control; the gate's form answers.
  await expect(page.getByRole("button", { name: "Hand back and resume" })).toHaveCount(0);

  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("success", { timeout: 60_000 });
  const events = page.getByTestId("events");
  await expect(events).toContainText("takeover_started");
  await expect(events).toContainText("takeover_ended");
});

/**
 * The same gate, answered with the one primary action: the person takes control, clicks the button on the
 * picture, and presses "Hand back and resume" twice in one go (both clicks land before the page re-renders):
 * the page is handed back and the gate approved exactly once, and the run finishes in the same page. A
 * second tab on the run, open all along at the gate, sees the run move on; its stale answer is refused.
 */
test("hand back and resume in one action: exactly once, and a second tab sees the run move on", async ({
  page,
  server,
}) => {
  test.setTimeout(180_000);
  const runId = await pausedRun(server);
  const picture = await openAtGate(page, runId);
  const other = await page.context().newPage();
  await openAtGate(other, runId);
  await expect(other.getByRole("button", { name: "Approve" })).toBeVisible();
  const before = await server.api<{ version: number }>("GET", `/api/runs/${runId}`);

  await page.getByRole("button", { name: "Take control" }).click();
  const oneButton = page.getByRole("button", { name: "Hand back and resume" });
  await expect(oneButton).toBeVisible();
  await expect(oneButton).toHaveClass(/primary/);
  await expect(page.getByRole("button", { name: "Hand back", exact: true })).toBeVisible(); // still there
  await expectAccessible(page);
  await clickPageButton(picture);
  await expect(page.getByTestId("events")).toContainText("takeover_input", { timeout: 10_000 });

  // What the console sends: one hand-back and one answer, whatever the clicks.
  const sent: string[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === "POST" && /\/(live\/hand-back|resume)$/.test(path)) sent.push(path);
  });
  // Two clicks in the same task: React has not re-rendered (the button is not disabled yet) for the second.
  await oneButton.evaluate((button: HTMLButtonElement) => {
    button.click();
    button.click();
  });
  await expect(page.getByTestId("run-status")).toHaveText("success", { timeout: 60_000 });
  await expect(page.getByRole("alert")).toHaveCount(0);
  expect(sent).toEqual([`/api/runs/${runId}/live/hand-back`, `/api/runs/${runId}/resume`]);
  const events = page.getByTestId("events");
  await expect(events).toContainText("takeover_ended");
  await expect(events).toContainText("gate_resolved");

  // The other tab saw the run move on: finished, with no gate left to answer.
  await expect(other.getByTestId("run-status")).toHaveText("success", { timeout: 30_000 });
  await expect(other.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(other.getByRole("button", { name: "Take control" })).toHaveCount(0);

  // Exactly once: one hand-back, one answer; a stale answer (the other tab's version) is refused.
  const log = await server.api<{ items: Array<{ type: string }> }>(
    "GET",
    `/api/runs/${runId}/events?limit=500`,
  );
  const count = (type: string) => log.items.filter((e) => e.type === type).length;
  expect(count("takeover_started")).toBe(1);
  expect(count("takeover_ended")).toBe(1);
  expect(count("gate_resolved")).toBe(1);
  await expect(
    server.api("POST", `/api/runs/${runId}/resume`, {
      kind: "approval",
      approved: true,
      expected_version: before.version,
    }),
  ).rejects.toThrow(/→ 409/);
  await other.close();
});
