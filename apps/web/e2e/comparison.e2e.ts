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

  test("a count says what ticking that choice would show, even inside a group already picked", async ({
    page,
  }) => {
    await page.goto("/comparison");
    await page.getByRole("checkbox", { name: /^skill/ }).check();
    await expect(page.getByTestId("row-count")).toHaveText("6 of 10 rows");
    // Values of one group are OR-ed: ticking builder next to skill brings back all 10 rows, so it says 10.
    await expect(page.getByTestId("count-kind:builder")).toHaveText("(10)");
    await expect(page.getByTestId("count-kind:skill")).toHaveText("(6)");
    await expect(page.getByTestId("count-host:codex")).toHaveText("(1)");
    await page.getByRole("checkbox", { name: /^builder/ }).check();
    await expect(page.getByTestId("row-count")).toHaveText("10 of 10 rows");
  });

  test("text search filters rows, counts follow it, and the URL keeps it for back and forward", async ({
    page,
  }) => {
    await page.goto("/comparison");
    const box = page.getByRole("searchbox", { name: /Search rows/ });
    await box.fill("diagnostics");
    await expect(page).toHaveURL(/q=diagnostics/);
    await expect(page.getByTestId("row-count")).toHaveText("2 of 10 rows");
    await expect(page.getByTestId("row-card")).toHaveText([/MCP provider diagnostics/, /OpenClaw provider/]);
    await expect(page.getByTestId("count-kind:builder")).toHaveText("(0)");
    await box.fill("codex builder");
    await expect(page).toHaveURL(/q=codex/);
    await expect(page.getByTestId("row-count")).toHaveText("1 of 10 rows");
    await expectAccessible(page);

    await page.goBack();
    await expect(page).toHaveURL(/q=diagnostics/);
    await expect(box).toHaveValue("diagnostics");
    await expect(page.getByTestId("row-count")).toHaveText("2 of 10 rows");
    await page.goBack();
    await expect(box).toHaveValue("");
    await expect(page.getByTestId("row-count")).toHaveText("10 of 10 rows");
    await page.goForward();
    await expect(box).toHaveValue("diagnostics");
    await expect(page.getByTestId("row-count")).toHaveText("2 of 10 rows");
  });

  test("compare marks differing fields with a label as well as a style", async ({ page }) => {
    await page.goto("/comparison?compare=codex-builder,claude-code-builder");
    const compare = page.getByTestId("compare");
    const host = compare.locator('tr[data-field="hostFamily"]');
    const kind = compare.locator('tr[data-field="starterKind"]');
    await expect(host).toHaveClass(/differs/);
    await expect(host.locator("th")).toContainText("≠ differs");
    await expect(kind).not.toHaveClass(/differs/);
    await expect(kind.locator("th")).not.toContainText("differs");
    // The style is really applied: a thick left rule and a tint that the same row lacks when equal.
    await expect(host.locator("th")).toHaveCSS("border-left-width", "4px");
    const tint = await host
      .locator("td")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    const plain = await kind
      .locator("td")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(tint).not.toBe(plain);
    await expect(compare.locator("caption")).toContainText(/\d+ of \d+ fields differ/);
    await expectAccessible(page);
  });

  test("a fifth compare tick is refused with a visible, announced reason", async ({ page }) => {
    await page.goto("/comparison");
    const cards = page.getByTestId("row-card");
    for (let i = 0; i < 4; i++) await cards.nth(i).getByRole("checkbox", { name: "Compare" }).check();
    await expect(page.getByTestId("compare").locator("thead th")).toHaveCount(5);
    const limit = page.getByRole("status").filter({ hasText: "At most 4 rows" });
    await expect(limit).toBeVisible();
    const fifth = cards.nth(4).getByRole("checkbox", { name: "Compare" });
    await expect(fifth).toBeDisabled();
    await expect(fifth).toHaveAccessibleDescription(/At most 4 rows can be compared/);
    await expectAccessible(page);
    await cards.nth(0).getByRole("checkbox", { name: "Compare" }).uncheck();
    await expect(fifth).toBeEnabled();
    await expect(page.getByTestId("compare-limit")).toHaveText("");
    await fifth.check();
    await expect(page.getByTestId("compare").locator("thead th")).toHaveCount(5);
  });

  test("the page names the document by its file name, never the server's folders", async ({ page }) => {
    await page.goto("/comparison");
    await expect(page.getByTestId("document-label")).toHaveText("Document: comparison.json");
    await expect(page.locator("main")).not.toContainText(EXAMPLE);
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
