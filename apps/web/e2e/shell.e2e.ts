import { cutOffNetwork, expect, expectAccessible, saveScreenshot, test } from "./harness.js";

test.describe("the console shell, served by the server", () => {
  test("/ lands on the runs page with the nav, and SPA routes survive a reload", async ({ page, server }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/runs$/);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
    await page.goto("/comparison?source=pasted");
    await expect(page.getByRole("heading", { name: "Comparison" })).toBeVisible();
    const asset = await page.evaluate(() =>
      document.querySelector("script[src^='/assets/']")?.getAttribute("src"),
    );
    const res = await fetch(new URL(asset ?? "/missing", server.url));
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const api404 = await fetch(new URL("/api/nope", server.url), { headers: { accept: "text/html" } });
    expect(api404.status).toBe(404);
    expect(((await api404.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    await expectAccessible(page);
  });

  test("/register lands on the console", async ({ page }) => {
    await page.goto("/register");
    await expect(page).toHaveURL(/\/runs$/);
  });

  test("the theme follows the system and the toggle overrides it", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/runs");
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await bg()).toBe("rgb(13, 17, 23)");
    await page.getByLabel("Theme").selectOption("light");
    expect(await bg()).toBe("rgb(255, 255, 255)");
    await saveScreenshot(page, "runs-light");
  });

  test("/api/docs renders from the server's own bundle with the network cut off", async ({
    page,
    server,
  }) => {
    const external = await cutOffNetwork(page);
    await page.goto(`${server.url}/api/docs`);
    await expect(page.getByText("Vetted API").first()).toBeVisible();
    await expect(page.getByText("Liveness and database reachability").first()).toBeVisible();
    expect(external).toEqual([]);
    await saveScreenshot(page, "api-docs");
  });
});
