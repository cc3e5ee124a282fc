import { startTestSite, type TestSite } from "../../../packages/runs/src/testing/test-site.js";
import { expect, expectAccessible, test } from "./harness.js";

let site: TestSite;
test.beforeAll(async () => {
  site = await startTestSite();
});
test.afterAll(async () => {
  await site.close();
});

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
  await expect(page.getByRole("button", { name: "Hand back" })).toBeVisible();
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
  await page.getByRole("button", { name: "Hand back" }).click();
  await expect(page.getByRole("button", { name: "Take control" })).toBeVisible();

  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("success", { timeout: 60_000 });
  const events = page.getByTestId("events");
  await expect(events).toContainText("takeover_started");
  await expect(events).toContainText("takeover_ended");
});
