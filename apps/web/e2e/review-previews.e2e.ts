import { join } from "node:path";
import type { Locator } from "@playwright/test";
import { onePagePdf, solidPng } from "../../../packages/fileorg/src/tests/content-fixtures.js";
import { analyzeOverHttp } from "../bench/seed.js";
import { expect, expectAccessible, saveScreenshot, test, writeFile } from "./harness.js";

/**
 * Thumbnails and conflicts in the review workbench: rows show a thumbnail the server rendered (an image, a
 * PDF's first page) that really loaded, the side panel a larger one, and a conflict lists its files and
 * what each resolution would leave — by relative names, never an absolute path or a hash.
 */
test.use({ viewport: { width: 1280, height: 800 } });

/** Waits until `img` has loaded a real picture (naturalWidth > 0) and answers its natural size. */
async function loaded(img: Locator): Promise<{ width: number; height: number }> {
  await expect(img).toBeVisible();
  // Generous: the first PDF loads pdfjs in the server (through tsx when it runs from source, on a busy CI).
  await expect
    .poll(() => img.evaluate((el: HTMLImageElement) => (el.complete ? el.naturalWidth : 0)), {
      timeout: 60_000,
    })
    .toBeGreaterThan(0);
  return img.evaluate((el: HTMLImageElement) => ({ width: el.naturalWidth, height: el.naturalHeight }));
}

test("rows and the side panel show rendered thumbnails; a conflict shows its files and resolutions", async ({
  page,
  server,
}) => {
  const source = join(server.root, "previews");
  writeFile(join(source, "photos", "a", "sunset.png"), solidPng(120, 80, [230, 120, 20]));
  writeFile(join(source, "photos", "b", "sunset.png"), solidPng(80, 120, [20, 60, 200]));
  writeFile(join(source, "letter.pdf"), onePagePdf());
  writeFile(join(source, "notes.txt"), "just text");
  const job = await analyzeOverHttp(server.url, source, join(server.root, "previews-out"));

  await page.goto(`/files/jobs/${job}`);
  const rows = page.locator("[data-row]");
  await expect(rows).toHaveCount(4);
  // A PDF row: its first page, rendered by the server, loaded in a fixed 36 px box.
  const pdfRow = rows.filter({ hasText: "letter.pdf" });
  const firstPage = pdfRow.getByRole("img", { name: "First page of letter.pdf" });
  expect(await loaded(firstPage)).toEqual({ width: 64, height: 32 });
  expect(await firstPage.evaluate((el) => [el.clientWidth, el.clientHeight])).toEqual([36, 36]);
  expect(await firstPage.getAttribute("loading")).toBe("lazy");
  // An image row: its thumbnail; a text file keeps an empty box (no broken image).
  const photo = rows
    .filter({ hasText: "sunset.png" })
    .first()
    .getByRole("img", { name: "Thumbnail of sunset.png" });
  await loaded(photo);
  await expect(rows.filter({ hasText: "notes.txt" }).getByRole("img")).toHaveCount(0);

  // The side panel: a larger rendering of the PDF's first page.
  await pdfRow.getByRole("button", { name: "letter.pdf" }).click();
  const panel = page.getByRole("complementary", { name: "Row details" });
  expect(await loaded(panel.getByRole("img", { name: "First page of letter.pdf" }))).toEqual({
    width: 256,
    height: 128,
  });

  // The conflict: its two files by relative name with thumbnails, and what each resolution would leave.
  const conflicts = page.getByRole("region", { name: "Conflicts" });
  const conflict = conflicts.locator("[data-conflict]");
  await expect(conflict).toHaveCount(1);
  await expect(conflict.getByRole("heading")).toHaveText(
    /^duplicate target: 2 files want images\/\d{4}\/sunset\.png$/,
  );
  const files = conflict.getByRole("list", { name: "Files in this conflict" });
  await expect(files.getByRole("listitem")).toHaveCount(2);
  // Which copy keeps the name is the engine's order (the first analyzed); the test does not assume it.
  const names = (await files.locator(".conflict-file-name").allTextContents()).sort();
  expect(names).toEqual(["photos/a/sunset.png", "photos/b/sunset.png"]);
  const [first, second] = await files.locator(".conflict-file-name").allTextContents();
  await expect(files.getByRole("listitem").nth(0)).toContainText(/\d+ B · \d{4}-\d{2}-\d{2}/);
  for (const img of await files.getByRole("img", { name: "Thumbnail of sunset.png" }).all())
    await loaded(img);
  const keep = conflict.locator('[data-strategy="keep_both"]');
  await expect(keep.getByRole("button", { name: "Keep both" })).toBeVisible();
  const escaped = (t: string | undefined) => (t ?? "?").replaceAll(".", "\\.");
  await expect(keep.getByRole("listitem").nth(0)).toHaveText(
    new RegExp(`^${escaped(first)} → images/\\d{4}/sunset\\.png$`),
  );
  await expect(keep.getByRole("listitem").nth(1)).toHaveText(
    new RegExp(`^${escaped(second)} → images/\\d{4}/sunset \\(2\\)\\.png$`),
  );
  await expect(conflict.locator('[data-strategy="skip"]').getByRole("listitem").nth(1)).toHaveText(
    `${second}: skipped, stays where it is`,
  );
  // A strategy the engine refuses for this kind is not offered; no absolute path or hash is shown.
  await expect(conflict.locator('[data-strategy="move_to_duplicates"]')).toHaveCount(0);
  expect(await conflict.textContent()).not.toContain(server.root);
  await expectAccessible(page);
  await saveScreenshot(page, "review-previews");

  await keep.getByRole("button", { name: "Keep both" }).click();
  await expect(conflict).toHaveCount(0);
  await expect(conflicts).toContainText("No open conflicts.");
});
