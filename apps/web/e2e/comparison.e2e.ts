import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, expectAccessible, saveScreenshot, test } from "./harness.js";

const EXAMPLE = fileURLToPath(
  new URL("../../../packages/comparison/examples/comparison.json", import.meta.url),
);
test.use({ serverEnv: { VETTED_COMPARISON_FILE: EXAMPLE } });

test.describe("comparison explorer", () => {
  test("filter by facets with live counts, compare two rows side by side, back button", async ({ page }) => {
    await page.goto("/comparison");
    await expect(page.getByTestId("row-count")).toHaveText("10 of 10 rows");
    await expect(page.getByTestId("count-kind:builder")).toHaveText("(4)");

    await page.getByRole("checkbox", { name: /^builder/ }).check();
    await expect(page).toHaveURL(/g=/);
    await expect(page.getByTestId("row-count")).toHaveText("4 of 10 rows");
    await expect(page.getByTestId("row-card")).toHaveCount(4);
    // Live counts under the selection: other groups now count only builder rows.
    await expect(page.getByTestId("count-host:codex")).toHaveText("(1)");

    const cards = page.getByTestId("row-card");
    await cards.nth(0).getByRole("checkbox", { name: "Compare" }).check();
    await cards.nth(1).getByRole("checkbox", { name: "Compare" }).check();
    const compare = page.getByTestId("compare");
    await expect(compare).toBeVisible();
    await expect(compare.locator("thead th")).toHaveCount(3);
    // Every field is one row, aligned across the compared rows.
    for (const field of ["status", "hostFamily", "bestWhen", "notYetSupported"]) {
      await expect(compare.locator(`tr[data-field="${field}"] td`)).toHaveCount(2);
    }
    await saveScreenshot(page, "comparison");
    await expectAccessible(page);

    await page.goBack();
    await expect(page.getByTestId("compare")).toHaveCount(0);
    await page.goBack();
    await page.goBack();
    await expect(page.getByTestId("row-count")).toHaveText("10 of 10 rows");
  });

  test("a pasted invalid document shows its issues with line and column", async ({ page }) => {
    const doc = JSON.parse(readFileSync(EXAMPLE, "utf8")) as { comparisons: { status: string }[] };
    const first = doc.comparisons[0];
    if (first !== undefined) first.status = "bogus";
    await page.goto("/comparison?source=pasted");
    await page.getByLabel(/Paste or drop/).fill(JSON.stringify(doc, null, 2));
    await page.getByRole("button", { name: "Check and explore" }).click();
    await expect(page.getByTestId("issues")).toContainText(/line \d+, column \d+/);
    await expect(page.getByTestId("issues")).toContainText("/comparisons/0/status");
    await expectAccessible(page);
  });
});
