import type { BrowserContext, Page, Worker } from "@playwright/test";
import { type Receiver, startReceiver } from "../../../packages/runs/src/testing/webhook-receiver.js";
import { expect, expectAccessible, type TestServer, test } from "./harness.js";

const PROMPT = "Enter the code the bank texted you";

async function startGateRun(server: TestServer, name: string): Promise<string> {
  const flow = await server.api<{ id: string }>("POST", "/api/flows", {
    name,
    steps: [{ id: "code", type: "otp_gate", prompt: PROMPT }],
  });
  const run = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: flow.id, params: {} });
  return run.id;
}

async function waitForStatus(server: TestServer, runId: string, status: string): Promise<void> {
  await expect
    .poll(async () => (await server.api<{ status: string }>("GET", `/api/runs/${runId}`)).status)
    .toBe(status);
}

/** The console's service worker, once it runs; its showNotification calls are recorded in `__shown`. */
async function recordingWorker(context: BrowserContext, page: Page): Promise<Worker> {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  const worker = context.serviceWorkers().find((w) => w.url().endsWith("/sw.js"));
  if (worker === undefined) throw new Error("the console's service worker is not running");
  await worker.evaluate(() => {
    // The worker's global scope (the DOM lib has no ServiceWorkerGlobalScope type).
    const sw = self as unknown as { registration: ServiceWorkerRegistration; __shown?: string[] };
    const show = sw.registration.showNotification.bind(sw.registration);
    sw.__shown = [];
    sw.registration.showNotification = (title: string, options?: NotificationOptions) => {
      sw.__shown?.push(`${title} | ${options?.body ?? ""}`);
      return show(title, options);
    };
  });
  return worker;
}

async function following(page: Page): Promise<void> {
  await expect(page.getByTestId("gate-notices")).toHaveAttribute("data-live", "true");
}

test.describe("told when a gate waits", () => {
  test("a run that starts waiting raises one system notification with its prompt, across two tabs", async ({
    page,
    context,
    server,
  }) => {
    // A wait open before the page loads is never announced.
    const before = await startGateRun(server, "earlier payment");
    await waitForStatus(server, before, "waiting_otp");
    await context.grantPermissions(["notifications"], { origin: server.url });
    await page.goto("/runs");
    await expect(page.getByTestId("notify-prompt")).toHaveCount(0);
    const worker = await recordingWorker(context, page);
    const second = await context.newPage();
    await second.goto("/notifications");
    await expect(second.getByTestId("notify-status")).toContainText("On:");
    await following(page);
    await following(second);

    const runId = await startGateRun(server, "monthly payment");
    await waitForStatus(server, runId, "waiting_otp");
    const shown = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      for (let i = 0; i < 100; i++) {
        const list = await registration.getNotifications();
        if (list.length > 0)
          return list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
        await new Promise((r) => setTimeout(r, 100));
      }
      return [];
    });
    expect(shown).toEqual([
      {
        title: "monthly payment needs a one-time code",
        body: PROMPT,
        tag: expect.stringMatching(new RegExp(`^${runId}:code:`)),
        data: { url: `/runs/${runId}`, key: expect.stringMatching(new RegExp(`^${runId}:code:`)) },
      },
    ]);
    // Both tabs saw the change and handed it to the worker; it was shown once (give the slower tab time).
    await page.waitForTimeout(500);
    expect(await worker.evaluate(() => (self as unknown as { __shown?: string[] }).__shown)).toEqual([
      `monthly payment needs a one-time code | ${PROMPT}`,
    ]);
    // Two notices of one wait posted back to back (as two tabs may): the worker's synchronous check, not
    // only its Cache Storage record, keeps the second one out.
    await page.evaluate(async () => {
      const worker = (await navigator.serviceWorker.ready).active;
      const notice = { type: "gate-waiting", key: "run_race:gate:1", title: "race", body: "b", url: "/runs" };
      worker?.postMessage(notice);
      worker?.postMessage(notice);
    });
    await page.waitForTimeout(300);
    const all = await worker.evaluate(() => (self as unknown as { __shown?: string[] }).__shown);
    expect(all?.filter((s) => s.startsWith("race"))).toEqual(["race | b"]);
    // What a click on it does (the worker's notificationclick handler calls openGate with its data.url):
    // a console tab is brought to the gate's page.
    await worker.evaluate(
      (url) => (self as unknown as { openGate(u: string): Promise<unknown> }).openGate(url),
      `/runs/${runId}`,
    );
    await expect
      .poll(() => [page.url(), second.url()].filter((u) => u.endsWith(`/runs/${runId}`)).length)
      .toBe(1);
    await second.close();
  });

  test("the prompt asks once, and remembers 'Not now'", async ({ page }) => {
    await page.goto("/runs");
    const prompt = page.getByTestId("notify-prompt");
    await expect(prompt).toBeVisible();
    await expect(prompt.getByRole("button", { name: "Turn on notifications" })).toBeVisible();
    await prompt.getByRole("button", { name: "Not now" }).click();
    await expect(prompt).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
    await expect(page.getByTestId("notify-prompt")).toHaveCount(0);
    expect(await page.evaluate(() => localStorage.getItem("vetted.gate-notifications"))).toBe("off");
  });
});

test.describe("the notifications page", () => {
  let receiver: Receiver;
  test.beforeAll(async () => {
    receiver = await startReceiver();
  });
  test.afterAll(async () => {
    await receiver.close();
  });

  test("adds a webhook, sends a test delivery and shows it delivered", async ({ page }) => {
    await page.goto("/notifications");
    await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
    await page.getByLabel("URL").fill(`${receiver.url}/vetted`);
    await page.getByLabel(/job\.finished/).check();
    await page.getByRole("button", { name: "Add webhook" }).click();
    const hook = page.getByTestId("webhook").filter({ hasText: `${receiver.url}/vetted` });
    await expect(hook).toContainText("run.waiting, run.failed, job.finished");
    await expect(hook).toContainText("No deliveries yet.");
    await hook.getByRole("button", { name: "Send test delivery" }).click();
    const delivery = hook.getByTestId("delivery");
    await expect(delivery).toHaveAttribute("data-status", "delivered");
    await expect(delivery).toContainText("webhook.test");
    await expect(delivery).toContainText("HTTP 200");
    expect(receiver.received.map((r) => [r.path, r.headers["x-vetted-event"]])).toEqual([
      ["/vetted", "webhook.test"],
    ]);
    await expectAccessible(page);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
  });

  test("shows the server's refusal of a URL at the field", async ({ page, server }) => {
    await page.goto("/notifications");
    await page.getByLabel("URL").fill(`${server.url}/api/health`);
    await page.getByRole("button", { name: "Add webhook" }).click();
    await expect(page.getByRole("alert")).toContainText("WEBHOOK_URL_DENIED");
  });
});
