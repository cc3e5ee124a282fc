import { readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { type FakeShop, GOOD_OTP, startFakeShop } from "../../server/src/tests/fake-shop.js";
import { expect, expectAccessible, saveScreenshot, type TestServer, test } from "./harness.js";

// The fake shop's payment provider listens on 127.0.0.2: a protected payment domain for this server.
test.use({ serverEnv: { VETTED_PROTECTED_PROVIDER_DOMAINS: "127.0.0.2" } });

let shop: FakeShop;
test.beforeAll(async () => {
  shop = await startFakeShop();
});
test.afterAll(async () => {
  await shop.close();
});

async function createTemplate(server: TestServer, name: string, steps: unknown[]): Promise<string> {
  const flow = await server.api<{ id: string }>("POST", "/api/flows", { name, steps });
  const tpl = await server.api<{ id: string }>("POST", "/api/templates", {
    name,
    flow_id: flow.id,
    params_schema: [{ key: "shop", type: "string", required: true }],
    policies: { otp: { max_attempts: 3, timeout_seconds: 600 }, gate_timeout_seconds: 3600 },
  });
  return tpl.id;
}

const checkout = [
  {
    id: "cart",
    type: "http",
    method: "POST",
    url: "${params.shop}/cart",
    body: { sku: "A1" },
    expect: { status: [200] },
    extract: { cart_id: "$.id" },
  },
  { id: "code", type: "otp_gate", prompt: "Enter the code we texted you" },
  {
    id: "pay",
    type: "http",
    method: "POST",
    url: "${params.shop}/pay",
    body: { cart: "${vars.cart_id}", otp: "${gate.otp_code}" },
    expect: { status: [200] },
  },
];

test.describe("runs", () => {
  test("start from a template, wrong OTP (attempt count shown), right OTP, success", async ({
    page,
    server,
  }) => {
    const templateId = await createTemplate(server, "checkout", checkout);
    await page.goto(`/templates/${templateId}`);
    await page.getByLabel("shop *").fill(shop.shopUrl);
    await page.getByRole("button", { name: "Start run" }).click();
    await expect(page).toHaveURL(/\/runs\/[^/]+$/);
    await expect(page.getByTestId("run-status")).toHaveText("waiting_otp");
    await expect(page.getByTestId("otp-attempts")).toContainText("Attempts: 0 of 3");
    await saveScreenshot(page, "run-otp-gate");
    await expectAccessible(page);

    await page.getByRole("textbox", { name: "One-time code" }).fill("000000");
    await page.getByRole("button", { name: "Submit code" }).click();
    await expect(page.getByTestId("otp-attempts")).toContainText("Attempts: 1 of 3");
    await expect(page.getByText("The last code was rejected.")).toBeVisible();

    await page.getByRole("textbox", { name: "One-time code" }).fill(GOOD_OTP);
    await page.getByRole("button", { name: "Submit code" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("success");
    const runId = page.url().split("/").pop() ?? "";
    expect(shop.count(runId, "pay")).toBe(2);
    await expect(page.getByTestId("events")).toContainText("gate_resolved");
    await expect(page.getByTestId("timeline")).toContainText(/pay — \w+, \d+ ms/);
  });

  test("the runs list shows waiting runs first; approve a protected payment step", async ({
    page,
    server,
  }) => {
    const steps = [
      { id: "charge", type: "http", method: "POST", url: `${shop.providerUrl}/charge`, body: { amount: 5 } },
    ];
    const templateId = await createTemplate(server, "pay", steps);
    const run = await server.api<{ id: string }>("POST", "/api/runs", {
      template_id: templateId,
      params: { shop: shop.shopUrl },
    });
    await page.goto("/runs");
    const waiting = page.getByTestId("waiting-run").filter({ hasText: run.id });
    await expect(waiting).toBeVisible();
    await expect(waiting).toContainText(/in (59 min|60 min|1 h 0 min)/);
    await saveScreenshot(page, "runs-list");
    await expectAccessible(page);

    await page.getByRole("button", { name: "waiting_user" }).click();
    await expect(page).toHaveURL(/status=waiting_user/);
    await page.goBack();
    await expect(page).toHaveURL(/\/runs$/);

    await waiting.getByRole("link").click();
    await expect(page.getByTestId("provider-domain")).toHaveText("127.0.0.2");
    expect(shop.count(run.id, "charge")).toBe(0);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("success");
    expect(shop.count(run.id, "charge")).toBe(1);
  });

  test("the runs list is live: new runs and runs reaching a gate appear without polling", async ({
    page,
    server,
  }) => {
    const lists: string[] = [];
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (r.method() === "GET" && u.pathname === "/api/runs") lists.push(u.search);
    });
    await page.goto("/runs");
    await expect(page.getByTestId("runs-live")).toHaveAttribute("data-live", "true");
    // Connected and idle: the lists are fetched once (and once more on the stream's `ready`), then never
    // again while nothing changes — no poll is running (the old 5 s poll would fetch in this window).
    await page.waitForTimeout(1000);
    const settled = lists.length;
    await page.waitForTimeout(5500);
    expect(lists.length).toBe(settled);

    // A run created after the page loaded appears (and finishes) within a couple of seconds.
    const quick = await server.api<{ id: string; flow_id: string }>("POST", "/api/flows", {
      name: "quick",
      steps: [{ id: "a", type: "set", vars: { x: 1 } }],
    });
    const done = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: quick.id });
    const row = page.getByRole("row").filter({ hasText: done.id });
    await expect(row).toContainText("success", { timeout: 3000 });

    // A run that reaches an OTP gate shows at the top, under "Waiting for you", as waiting_otp.
    const gated = await server.api<{ id: string }>("POST", "/api/flows", {
      name: "gated",
      steps: [{ id: "code", type: "otp_gate", prompt: "Enter the code we texted you" }],
    });
    const waiting = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: gated.id });
    await expect(page.getByTestId("waiting-run").filter({ hasText: waiting.id })).toContainText(
      "Enter the code we texted you",
      { timeout: 3000 },
    );
    await expect(page.getByRole("row").filter({ hasText: waiting.id }).last()).toContainText("waiting_otp");

    // Quiet again: still no poll.
    await page.waitForTimeout(1000);
    const after = lists.length;
    await page.waitForTimeout(3000);
    expect(lists.length).toBe(after);
  });

  test("while the stream is cut off, the list says so and falls back to a slow poll", async ({ page }) => {
    // The page's clock is driven by the test (time still flows), so the 30 s poll is seen without waiting it out.
    await page.clock.install();
    await page.route("**/api/runs/stream", (route) => route.abort());
    let lists = 0;
    page.on("request", (r) => {
      if (r.method() === "GET" && new URL(r.url()).pathname === "/api/runs") lists += 1;
    });
    await page.goto("/runs");
    const badge = page.getByTestId("runs-live");
    await expect(badge).toHaveAttribute("data-live", "false");
    await expect(badge).toHaveText("Not live: refreshing every 30 s.");
    await page.waitForTimeout(1000);
    const first = lists;
    expect(first).toBeGreaterThan(0);
    // Not sooner than the 30 s fallback poll...
    await page.clock.fastForward(20_000);
    await page.waitForTimeout(1500);
    expect(lists).toBe(first);
    // ...but at it.
    await page.clock.fastForward(11_000);
    await expect.poll(() => lists, { timeout: 10_000 }).toBeGreaterThan(first);
  });
  test("evidence screenshots show a placeholder until written, are retried, never a broken image", async ({
    page,
    server,
  }) => {
    const flow = await server.api<{ id: string }>("POST", "/api/flows", {
      name: "look",
      steps: [
        { id: "open", type: "navigate", url: `${shop.shopUrl}/welcome` },
        { id: "shot", type: "screenshot", name: "snap" },
      ],
    });
    const run = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: flow.id });
    await expect
      .poll(async () => (await server.api<{ status: string }>("GET", `/api/runs/${run.id}`)).status, {
        timeout: 60_000,
      })
      .toBe("success");
    // Take the written screenshots away: the server answers 404, as it does before a capture lands.
    const dir = join(server.dataDir, "evidence", run.id);
    const files = readdirSync(dir).filter((f) => f.endsWith(".jpg"));
    expect(files.some((f) => f.endsWith("-snap.jpg"))).toBe(true);
    for (const f of files) renameSync(join(dir, f), join(dir, `${f}.held`));
    const restore = (suffix: string) => {
      for (const f of files.filter((x) => x.endsWith(suffix)))
        renameSync(join(dir, `${f}.held`), join(dir, f));
    };
    const shots: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/screenshots/snap")) shots.push(r.url());
    });

    // The page's clock flows, and the test jumps it past the retries' waits once it has seen them.
    await page.clock.install();
    await page.goto(`/runs/${run.id}`);
    const snap = page.getByRole("img", { name: "Screenshot snap of step shot" });
    const waiting = page
      .getByRole("status")
      .filter({ hasText: "Screenshot snap: waiting for it to be written" });
    await expect(waiting).toBeVisible();
    await expect(snap).toBeHidden();
    await expectAccessible(page);
    // Retried with growing waits, each try a fresh request.
    await expect.poll(() => shots.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(new Set(shots).size).toBe(shots.length);

    restore("-snap.jpg");
    await expect(snap).toBeVisible({ timeout: 20_000 });
    expect(await snap.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await expect(waiting).toHaveCount(0);

    // A screenshot that never appears ends as a sentence and a button, not a broken image.
    const after = page.getByRole("status").filter({ hasText: "Screenshot after is not available" }).first();
    await expect
      .poll(
        async () => {
          await page.clock.fastForward(8_000);
          return after.isVisible();
        },
        { timeout: 30_000, intervals: [250] },
      )
      .toBe(true);
    await saveScreenshot(page, "run-evidence");
    await expectAccessible(page);
    restore("-after.jpg");
    await after.getByRole("button", { name: "Try again" }).click();
    // The first "after" is the open step's: it loads now that its file is back.
    await expect(page.getByRole("img", { name: "Screenshot after of step open" })).toBeVisible();
    // No image on the page is shown without having loaded.
    const broken = await page
      .locator("img")
      .evaluateAll(
        (imgs) =>
          imgs.filter((i) => !(i as HTMLImageElement).hidden && (i as HTMLImageElement).naturalWidth === 0)
            .length,
      );
    expect(broken).toBe(0);
  });
  test("run lists and the run page name the template or flow, not its id", async ({ page, server }) => {
    const templateId = await createTemplate(server, "Named checkout", [
      { id: "a", type: "set", vars: { x: 1 } },
    ]);
    const fromTemplate = await server.api<{ id: string; flow_id: string }>("POST", "/api/runs", {
      template_id: templateId,
      params: { shop: shop.shopUrl },
    });
    const flow = await server.api<{ id: string }>("POST", "/api/flows", {
      name: "Bare flow",
      steps: [{ id: "a", type: "set", vars: { x: 1 } }],
    });
    const fromFlow = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: flow.id });

    await page.goto("/runs");
    const templateCell = page.getByRole("row").filter({ hasText: fromTemplate.id }).getByTestId("run-source");
    await expect(templateCell).toHaveText("Named checkout (template)");
    await expect(templateCell.getByRole("link")).toHaveAttribute("href", `/templates/${templateId}`);
    const flowCell = page.getByRole("row").filter({ hasText: fromFlow.id }).getByTestId("run-source");
    await expect(flowCell).toHaveText("Bare flow (flow)");
    await expect(page.getByTestId("run-source").filter({ hasText: /tpl_|flow_/ })).toHaveCount(0);
    await expectAccessible(page);

    await page.goto(`/runs/${fromTemplate.id}`);
    await expect(page.getByRole("link", { name: "Named checkout" })).toHaveAttribute(
      "href",
      `/flows/${fromTemplate.flow_id}`,
    );
  });
});
