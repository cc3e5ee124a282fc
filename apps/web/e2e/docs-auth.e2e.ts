import { cutOffNetwork, expect, test } from "./harness.js";

const TOKEN = "e2e-docs-token-0123456789";
test.use({ serverEnv: { VETTED_API_TOKEN: TOKEN } });

test.describe("/api/docs on a token-protected server", () => {
  test("renders offline without the token, and Try it sends the console's token", async ({
    page,
    server,
  }) => {
    const external = await cutOffNetwork(page);
    const unauthorized = await fetch(new URL("/api/runs", server.url));
    expect(unauthorized.status).toBe(401);
    await page.goto(`${server.url}/api/docs`);
    await expect(page.getByText("Liveness and database reachability").first()).toBeVisible();
    // Sign in to the console once (the token prompt keeps it in this tab's sessionStorage)...
    await page.goto("/runs");
    await page.getByRole("textbox", { name: "Token" }).fill(TOKEN);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
    // ...then the docs, opened from the console's nav, send it with "Try it" without asking again.
    await page.getByRole("link", { name: "API docs" }).click();
    await expect(page.getByText("Liveness and database reachability").first()).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Bearer Token" }).first()).toHaveValue(TOKEN);
    await page.goto(`${server.url}/api/docs#tag/runs/GET/api/runs`);
    await page.getByRole("button", { name: "Test Request (get /api/runs)", exact: true }).click();
    const sent = page.waitForRequest(
      (r) => new URL(r.url()).pathname === "/api/runs" && r.method() === "GET",
    );
    await page.getByRole("button", { name: "Send get request to /api/runs" }).click();
    const request = await sent;
    expect(request.headers().authorization).toBe(`Bearer ${TOKEN}`);
    expect((await request.response())?.status()).toBe(200);
    expect(external).toEqual([]);
  });
});
