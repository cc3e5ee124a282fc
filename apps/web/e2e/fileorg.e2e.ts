import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, expectAccessible, saveScreenshot, test, writeFile } from "./harness.js";

/**
 * File organization in the console: analyze a generated folder → review → batch triage → resolve a
 * conflict → apply → files moved on disk → rollback → files back; j/k/x keys; axe and screenshots.
 */
test("analyze, review, triage, resolve, apply and roll back a folder", async ({ page, server }) => {
  const source = join(server.root, "messy");
  const output = join(server.root, "sorted");
  // Two files that land on the same target (same name, same year) make a duplicate_target conflict.
  writeFile(join(source, "a", "report.txt"), "first report");
  writeFile(join(source, "b", "report.txt"), "second report, different");
  for (let i = 0; i < 6; i++) writeFile(join(source, `note-${i}.txt`), `note ${i}`);
  writeFile(join(source, "mystery.zzz"), "unknown type");

  await page.goto("/files");
  await expect(page.getByRole("heading", { name: "Files" })).toBeVisible();
  await page.getByLabel("Folder to analyze (inside the allowed roots)").fill(source);
  await page.getByLabel("Output folder (default: the folder itself)").fill(output);
  // The live preview shows three sample targets for the template.
  await expect(page.getByRole("list", { name: "Sample targets" }).getByRole("listitem")).toHaveCount(3);
  await page.getByLabel("Naming template").fill("{category}/{bogus}/{name}{ext}");
  await expect(page.locator("#naming-preview")).toContainText("Unknown token {bogus}");
  await page.getByLabel("Naming template").fill("{category}/{name}{ext}");
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-jobs");
  await page.getByRole("button", { name: "Analyze" }).click();
  const row = page.locator("tr[data-status=succeeded]").first();
  await expect(row).toBeVisible({ timeout: 60_000 });
  await row.getByRole("link").click();

  // Review workbench: folder tree + rows.
  await expect(page.getByRole("navigation", { name: "Planned folders" })).toBeVisible();
  const rows = page.locator("[data-row]");
  await expect(rows.first()).toBeVisible();
  await expect(rows).toHaveCount(9);
  // Keyboard: j moves, x selects.
  await page.locator("body").press("j");
  await expect(page.locator(".manifest-row.is-cursor")).toHaveCount(1);
  await page.keyboard.press("j");
  await expect(page.locator(".manifest-row.is-cursor")).toHaveAttribute("aria-rowindex", "2");
  await page.keyboard.press("k");
  await expect(page.locator(".manifest-row.is-cursor")).toHaveAttribute("aria-rowindex", "1");
  await expect(page.getByRole("complementary", { name: "Row details" })).toBeVisible();
  await page.keyboard.press("x");
  await page.keyboard.press("j");
  await page.keyboard.press("x");
  await expect(page.locator("[data-row][data-selected=true]")).toHaveCount(2);
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-review");

  // Batch triage of the notes: filter by text, select all visible, approve.
  await page.keyboard.press("Escape");
  await page.getByLabel("Text").fill("note-");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/q=note-/);
  await expect(rows).toHaveCount(6);
  for (let i = 0; i < 6; i++) await rows.nth(i).getByRole("checkbox").check();
  await page.getByRole("button", { name: "Approve selected" }).click();
  await expect(page.locator("[data-row][data-selected=true]")).toHaveCount(0);
  const approved = await server.api<{ items: Array<{ reason_codes: string[] }> }>(
    "GET",
    `/api/jobs/${page.url().split("/files/jobs/")[1]?.split("?")[0]}/manifest?text=note-`,
  );
  expect(approved.items.every((r) => r.reason_codes.includes("APPROVED"))).toBe(true);

  // Resolve the duplicate-target conflict by renaming.
  const conflicts = page.getByRole("region", { name: "Conflicts" });
  await expect(conflicts).toContainText("duplicate target");
  await conflicts.getByRole("button", { name: "Rename (add (2), (3)…)" }).first().click();
  await expect(conflicts).toContainText("No open conflicts.");

  // Apply: dry run, then apply; files move on disk.
  await page.getByRole("link", { name: "Apply and report" }).click();
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.locator("[data-dry-run=succeeded]")).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Apply the plan" }).click();
  await expect(page.locator("[data-apply-status=succeeded][data-kind=apply]")).toBeVisible({
    timeout: 60_000,
  });
  await expect(page.getByLabel("Report")).toContainText("rows");
  await expect(page.locator("[data-chain-valid=true]")).toBeVisible();
  expect(existsSync(join(source, "note-0.txt"))).toBe(false);
  expect(existsSync(join(output, "documents", "note-0.txt"))).toBe(true);
  expect(existsSync(join(output, "documents", "report.txt"))).toBe(true);
  expect(existsSync(join(output, "documents", "report (2).txt"))).toBe(true);
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-apply");

  // Roll back the whole job: files are back.
  await page.getByRole("button", { name: "Roll back" }).click();
  await expect(page.locator("[data-apply-status=succeeded][data-kind=rollback]")).toBeVisible({
    timeout: 60_000,
  });
  expect(existsSync(join(source, "note-0.txt"))).toBe(true);
  expect(existsSync(join(source, "a", "report.txt"))).toBe(true);
  expect(existsSync(join(output, "documents", "note-0.txt"))).toBe(false);
});

test("inbox and preferences pages show validation messages next to the fields", async ({ page }) => {
  await page.goto("/files/preferences");
  await expect(page.getByRole("heading", { name: "File preferences" })).toBeVisible();
  await page.getByLabel("Workers").fill("999");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("form", { name: "Runtime settings" }).locator(".field-error")).toBeVisible();
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-preferences");
  await page.goto("/files/inbox");
  await page.getByLabel("Name").fill("Downloads");
  await page.getByLabel("Folder").fill("relative/path");
  await page.getByRole("button", { name: "Add" }).click();
  await expect(page.getByRole("form", { name: "Add a watch source" }).locator(".field-error")).toContainText(
    "absolute",
  );
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-inbox");
});
