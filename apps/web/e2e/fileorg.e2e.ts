import { existsSync } from "node:fs";
import { join } from "node:path";
import { analyzeOverHttp } from "../bench/seed.js";
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
  await expect(
    page.getByRole("list", { name: "Dry run: files that stay" }).locator("[data-stays=unreviewed]"),
  ).toHaveText("1 stay: nobody reviewed them");
  // mystery.zzz was never reviewed: a real apply asks first, naming what it leaves behind.
  await page.getByRole("button", { name: "Apply the plan" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Apply with files left behind?" });
  await expect(confirm).toContainText("8 files will move");
  await expect(confirm).toContainText("1 file nobody reviewed (needs review)");
  await expect(confirm).toContainText("0 files in an open conflict");
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-apply-confirm");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  expect(existsSync(join(source, "note-0.txt"))).toBe(true);
  await page.getByRole("button", { name: "Apply the plan" }).click();
  await confirm.getByRole("button", { name: "Move 8 files" }).click();
  await expect(page.locator("[data-apply-status=succeeded][data-kind=apply]")).toBeVisible({
    timeout: 60_000,
  });
  await expect(
    page.getByRole("list", { name: "Apply: files that stay" }).locator("[data-stays=unreviewed]"),
  ).toHaveText("1 stay: nobody reviewed them");
  expect(existsSync(join(source, "mystery.zzz"))).toBe(true);
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

test("learned suggestions are accepted with one click; saved views are saved and picked", async ({
  page,
  server,
}) => {
  // Two edits of "invoice" files to spreadsheets teach a token:invoice → category suggestion.
  const first = join(server.root, "learn-1");
  writeFile(join(first, "invoice-1.txt"), "one");
  writeFile(join(first, "invoice-2.txt"), "two");
  const firstJob = await analyzeOverHttp(server.url, first, join(server.root, "learn-1-out"));
  const firstRows = await server.api<{ items: Array<{ row_id: string }> }>(
    "GET",
    `/api/jobs/${firstJob}/manifest`,
  );
  await server.api("POST", `/api/jobs/${firstJob}/review-queue/batch-triage`, {
    action: "set_category",
    value: "spreadsheets",
    row_ids: firstRows.items.map((r) => r.row_id),
  });
  // A new invoice lands in review with the learned suggestion (its plan says documents).
  const second = join(server.root, "learn-2");
  writeFile(join(second, "invoice-3.txt"), "three");
  writeFile(join(second, "letter.txt"), "dear");
  const job = await analyzeOverHttp(server.url, second, join(server.root, "learn-2-out"));

  await page.goto(`/files/jobs/${job}`);
  const rows = page.locator("[data-row]");
  await expect(rows).toHaveCount(2);
  await rows.filter({ hasText: "invoice-3" }).getByRole("checkbox").check();
  const panel = page.getByRole("region", { name: "Learned suggestions" });
  await expect(panel).toContainText("Learned suggestions for this row");
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-suggestions");
  await panel.getByRole("button", { name: "Accept category spreadsheets" }).click();
  await expect(panel).toHaveCount(0);
  const after = await server.api<{ items: Array<{ source_path: string; category: string }> }>(
    "GET",
    `/api/jobs/${job}/manifest?text=invoice-3`,
  );
  expect(after.items.map((r) => r.category)).toEqual(["spreadsheets"]);

  // Save the current text filter as a view; the picker selects it and the URL carries ?view=.
  await page.getByLabel("Text").fill("letter");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(rows).toHaveCount(1);
  await page.getByLabel("New view name").fill("Letters");
  await page.getByRole("button", { name: "Save as view" }).click();
  await expect(page).toHaveURL(/view=/);
  await expect(page).not.toHaveURL(/q=letter/);
  await expect(page.getByRole("combobox", { name: "Saved view" })).toHaveValue(/.+/);
  await expect(rows).toHaveCount(1);
  await page.getByRole("combobox", { name: "Saved view" }).selectOption({ label: "None" });
  await expect(page).not.toHaveURL(/view=/);
  await expect(rows).toHaveCount(2);
  await page.getByRole("combobox", { name: "Saved view" }).selectOption({ label: "Letters" });
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("letter");
});

test("the jobs list shows folders, date, counts, dry run versus apply, and the outcome", async ({
  page,
  server,
}) => {
  const source = join(server.root, "listed");
  const output = join(server.root, "listed-out");
  for (let i = 0; i < 3; i++) writeFile(join(source, `memo-${i}.txt`), `memo ${i}`);
  const analyzeId = await analyzeOverHttp(server.url, source, output);
  const finished = async (body: Record<string, unknown>): Promise<string> => {
    const { job_id } = await server.api<{ job_id: string }>("POST", "/api/jobs/apply", body);
    await expect
      .poll(async () => (await server.api<{ status: string }>("GET", `/api/jobs/${job_id}`)).status, {
        timeout: 60_000,
      })
      .toBe("succeeded");
    return job_id;
  };
  const buckets = ["auto_safe", "needs_review"];
  const dryId = await finished({ job_id: analyzeId, dry_run: true, buckets });
  const applyId = await finished({ job_id: analyzeId, buckets });

  await page.goto("/files");
  const analyzed = page.locator(`tr[data-job="${analyzeId}"]`);
  await expect(analyzed.locator("[data-cell=kind]")).toHaveText(/Analyze/);
  await expect(analyzed.locator("[data-cell=folders]")).toHaveText(`${source} → ${output}`);
  await expect(analyzed.locator("[data-cell=counts]")).toHaveText("3 files");
  await expect(analyzed.locator("[data-cell=outcome]")).toHaveText("Succeeded");
  const created = await analyzed.locator("time").getAttribute("datetime");
  expect(Number.isNaN(Date.parse(created ?? ""))).toBe(false);
  await expect(analyzed.locator("time")).not.toHaveText("");

  const dry = page.locator(`tr[data-job="${dryId}"]`);
  await expect(dry.locator("[data-cell=kind]")).toHaveText("Dry runnothing moved");
  await expect(dry.locator(".kind-dry-run")).toHaveCSS("border-top-style", "dashed");
  await expect(dry.locator("[data-cell=folders]")).toHaveText(`${source} → ${output}`);
  await expect(dry.locator("[data-cell=counts]")).toHaveText("3 files · would move 3");

  const applied = page.locator(`tr[data-job="${applyId}"]`);
  await expect(applied.locator("[data-cell=kind]")).toHaveText("Applymoves files");
  await expect(applied.locator(".kind-apply")).toHaveCSS("border-top-style", "solid");
  await expect(applied.locator("[data-cell=counts]")).toHaveText("3 files · 3 moved");
  await expect(applied.locator("[data-cell=outcome]")).toHaveText("Succeeded");
  await expectAccessible(page);
  await saveScreenshot(page, "fileorg-jobs-list");
});
