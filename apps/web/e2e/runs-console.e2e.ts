import { type FakeShop, startFakeShop } from "../../server/src/tests/fake-shop.js";
import { expect, expectAccessible, saveScreenshot, test } from "./harness.js";

let shop: FakeShop;
test.beforeAll(async () => {
  shop = await startFakeShop();
});
test.afterAll(async () => {
  await shop.close();
});

const gatedSteps = [
  {
    id: "cart",
    type: "http",
    method: "POST",
    url: "${params.shop}/cart",
    body: { sku: "A1" },
    expect: { status: [200] },
    extract: { cart_id: "$.id" },
  },
  { id: "note", type: "set", vars: { cart: "${vars.cart_id}" } },
  { id: "ok", type: "approval_gate", prompt: "Ship the cart?" },
  { id: "after", type: "set", vars: { done: true } },
];

test.describe("runs in the console", () => {
  test("start a flow from its page, approve with a comment shown in the events; re-run and cancel", async ({
    page,
    server,
  }) => {
    const flow = await server.api<{ id: string }>("POST", "/api/flows", { name: "Ship", steps: gatedSteps });
    await page.goto(`/flows/${flow.id}`);
    await page.getByLabel("shop").fill(shop.shopUrl);
    await page.getByRole("button", { name: "Start run" }).click();
    await expect(page).toHaveURL(/\/runs\/[^/]+$/);
    const firstUrl = page.url();
    await expect(page.getByTestId("run-status")).toHaveText("waiting_user");

    // Every step of the flow: finished ones, the waiting gate, the one still to come.
    const steps = page.getByTestId("step");
    await expect(steps).toHaveCount(4);
    await expect(steps.nth(0)).toHaveAttribute("data-state", "completed");
    await expect(steps.nth(1)).toHaveAttribute("data-state", "completed");
    await expect(steps.nth(2)).toHaveAttribute("data-state", "waiting");
    await expect(steps.nth(3)).toHaveAttribute("data-state", "to come");
    await expect(page.getByTestId("values-params")).toContainText(shop.shopUrl);
    await expect(page.getByTestId("values-vars")).toContainText("cart_id");
    await expect(page.getByTestId("events")).toContainText("gate_opened");
    await expectAccessible(page);

    await page.getByLabel(/^Comment/).fill("Looks right to me");
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("success");
    await expect(page.getByTestId("gate-answer")).toHaveText(/approved by local: “Looks right to me”/);
    await expect(steps.nth(3)).toHaveAttribute("data-state", "completed");
    // The payload of every event as the API returns it, the comment included.
    const resolved = page.getByTestId("events").locator("li").filter({ hasText: "gate_resolved" });
    await resolved.getByText("Payload").click();
    await expect(resolved.locator("pre")).toContainText('"comment": "Looks right to me"');
    await saveScreenshot(page, "run-approved-with-comment");
    await expectAccessible(page);

    // Re-run with the same params: a new run of the same flow, waiting at the same gate; cancel it.
    await page.getByRole("button", { name: "Re-run with the same params" }).click();
    await expect(page).not.toHaveURL(firstUrl);
    await expect(page.getByTestId("run-status")).toHaveText("waiting_user");
    await expect(page.getByTestId("values-params")).toContainText(shop.shopUrl);
    await page.getByRole("button", { name: "Cancel run" }).click();
    await expect(page.getByTestId("run-status")).toHaveText("cancelled");
    await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    await expect(page.getByTestId("step").nth(3)).toHaveAttribute("data-state", "not run");

    // Retry the cancelled run from where it stopped: a new run with its vars, at the same gate, the cart
    // not made again; it names the run it retries.
    const cancelledId = page.url().split("/").pop() ?? "";
    await page.getByRole("button", { name: "Retry from step ok" }).click();
    await expect(page).not.toHaveURL(new RegExp(`${cancelledId}$`));
    await expect(page.getByTestId("run-status")).toHaveText("waiting_user");
    await expect(page.getByTestId("values-vars")).toContainText("cart_id");
    await expect(page.getByRole("link", { name: cancelledId })).toBeVisible();
    expect(shop.count(page.url().split("/").pop() ?? "", "cart")).toBe(0);
    await expectAccessible(page);
  });

  test("a template run shows its secret masked; its re-run asks for the secret again", async ({
    page,
    server,
  }) => {
    const flow = await server.api<{ id: string }>("POST", "/api/flows", {
      name: "Pay",
      steps: [{ id: "ok", type: "approval_gate" }],
    });
    const tpl = await server.api<{ id: string }>("POST", "/api/templates", {
      name: "Pay with card",
      flow_id: flow.id,
      params_schema: [
        { key: "who", type: "string", required: true },
        { key: "card", type: "secret", required: true },
      ],
    });
    const run = await server.api<{ id: string }>("POST", "/api/runs", {
      template_id: tpl.id,
      params: { who: "Ada", card: "4111111111111111" },
    });
    await page.goto(`/runs/${run.id}`);
    const params = page.getByTestId("values-params");
    await expect(params).toContainText("Ada");
    await expect(params).toContainText("card");
    await expect(params).toContainText("(secret)");
    await expect(page.locator("body")).not.toContainText("4111111111111111");
    await expect(page.getByRole("link", { name: /Re-run \(enter the secrets card again\)/ })).toHaveAttribute(
      "href",
      `/templates/${tpl.id}`,
    );

    // Its retry asks for the secret again (an ended run keeps none).
    await server.api("POST", `/api/runs/${run.id}/cancel`);
    await page.reload();
    await page.getByLabel("card").fill("4111111111111111");
    await page.getByRole("button", { name: "Retry from step ok" }).click();
    await expect(page).not.toHaveURL(new RegExp(`${run.id}$`));
    await expect(page.getByTestId("run-status")).toHaveText("waiting_user");
    await expect(page.locator("body")).not.toContainText("4111111111111111");
  });

  test("filter the runs list by flow and time, then cancel the selected runs together", async ({
    page,
    server,
  }) => {
    const gated = await server.api<{ id: string }>("POST", "/api/flows", {
      name: "Hold",
      steps: [{ id: "ok", type: "approval_gate", prompt: "Go?" }],
    });
    const quick = await server.api<{ id: string }>("POST", "/api/flows", {
      name: "Quick",
      steps: [{ id: "a", type: "set", vars: { x: 1 } }],
    });
    const held = [
      await server.api<{ id: string }>("POST", "/api/runs", { flow_id: gated.id }),
      await server.api<{ id: string }>("POST", "/api/runs", { flow_id: gated.id }),
    ];
    const other = await server.api<{ id: string }>("POST", "/api/runs", { flow_id: quick.id });
    for (const r of held) {
      await expect
        .poll(async () => (await server.api<{ status: string }>("GET", `/api/runs/${r.id}`)).status)
        .toBe("waiting_user");
    }

    await page.goto("/runs");
    const allRuns = page.getByRole("table").last();
    await expect(allRuns.getByRole("row").filter({ hasText: other.id })).toHaveCount(1);
    await page.getByLabel("Template or flow").selectOption({ label: "Hold" });
    await expect(page).toHaveURL(/source=flow%3A/);
    await expect(allRuns.getByRole("row").filter({ hasText: other.id })).toHaveCount(0);
    for (const r of held) await expect(allRuns.getByRole("row").filter({ hasText: r.id })).toHaveCount(1);
    await expectAccessible(page);

    await page.getByRole("checkbox", { name: "Select every run that has not ended" }).check();
    await page.getByRole("button", { name: "Cancel selected (2)" }).click();
    await expect(page.getByTestId("bulk-outcome")).toHaveText("Cancelled 2.");
    for (const r of held) {
      await expect(allRuns.getByRole("row").filter({ hasText: r.id })).toContainText("cancelled");
      expect((await server.api<{ status: string }>("GET", `/api/runs/${r.id}`)).status).toBe("cancelled");
    }
    expect((await server.api<{ status: string }>("GET", `/api/runs/${other.id}`)).status).toBe("success");

    // A time range after every run: none match; clearing the filters brings them back.
    await page.getByLabel("Created from").fill("2099-01-01T00:00");
    await expect(page).toHaveURL(/from=2099-01-01T00%3A00/);
    await expect(page.getByText("No runs")).toBeVisible();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(page.getByRole("table").last().getByRole("row").filter({ hasText: other.id })).toHaveCount(
      1,
    );
  });
});
