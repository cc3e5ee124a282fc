import { join } from "node:path";
import type { Page } from "@playwright/test";
import { jpegWithCamera, mp3WithId3 } from "../../../packages/fileorg/src/tests/content-fixtures.js";
import { analyzeOverHttp } from "../bench/seed.js";
import { expect, expectAccessible, saveScreenshot, type TestServer, test, writeFile } from "./harness.js";

/**
 * The review workbench at 1280×800: the summary first (counts per bucket, what needs a person, top reasons,
 * the next action), the first rows on the first screen, rows with their folder, date and its source, and
 * keyboard triage that never acts on a row off-screen.
 */
test.use({ viewport: { width: 1280, height: 800 } });

interface Summary {
  total: number;
  needing_attention: number;
  buckets: Record<"blocked" | "conflict" | "needs_review" | "auto_safe", number>;
  top_reasons: Array<{ code: string; count: number }>;
}

/** A generated plan: 40 notes (auto-safe), 5 files of an unknown type (to review), 3 same-name pairs (conflicts). */
async function generatedPlan(server: TestServer, name: string): Promise<string> {
  const source = join(server.root, name);
  for (let i = 0; i < 40; i++) writeFile(join(source, "notes", `note-${i}.txt`), `note ${i}`);
  for (let i = 0; i < 5; i++) writeFile(join(source, `mystery-${i}.zzz`), `unknown ${i}`);
  for (let i = 0; i < 3; i++) {
    writeFile(join(source, "a", `report-${i}.txt`), `first report ${i}`);
    writeFile(join(source, "b", `report-${i}.txt`), `second report ${i}, different`);
  }
  return analyzeOverHttp(server.url, source, join(server.root, `${name}-out`));
}

async function summaryOf(server: TestServer, job: string): Promise<Summary> {
  return (await server.api<{ summary: Summary }>("GET", `/api/jobs/${job}/review-queue?limit=1`)).summary;
}

/** Batch-triage requests the page sends from now on. */
function triageRequests(page: Page): string[] {
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/review-queue/batch-triage")) sent.push(r.postData() ?? "");
  });
  return sent;
}

test("the summary counts the buckets, links the top reasons and suggests the next action", async ({
  page,
  server,
}) => {
  const job = await generatedPlan(server, "summary");
  const expected = await summaryOf(server, job);
  expect(expected.buckets).toEqual({ blocked: 0, conflict: 6, needs_review: 5, auto_safe: 40 });

  await page.goto(`/files/jobs/${job}`);
  const summary = page.getByRole("region", { name: "Summary" });
  await expect(summary.locator(".summary-counts")).toHaveText(
    "51 files: 5 to review, 6 in conflict, 0 blocked, 40 auto-safe",
  );
  await expect(summary.locator(".summary-attention")).toHaveText(
    "11 files need a person: 5 to review, 6 in conflict.",
  );
  await expect(page.locator("select[name=bucket] option[value=needs_review]")).toHaveText("needs_review (5)");
  await expect(page.locator("select[name=bucket] option[value=conflict]")).toHaveText("conflict (6)");
  // The first rows are on the first screen, below the summary, and say where each file came from.
  const rows = page.locator("[data-row]");
  await expect(rows.first()).toBeInViewport({ ratio: 1 });
  await expectAccessible(page);
  await saveScreenshot(page, "review-summary");

  // The reasons that send files to a person come first, each a filter to the files with that reason.
  const reasons = summary.locator("[data-reason]");
  await expect(reasons.first()).toHaveAttribute("data-reason", "OPEN_CONFLICT");
  await expect(reasons.first()).toContainText("(6)");
  const unknown = expected.top_reasons.find((r) => r.code === "UNKNOWN_TYPE");
  expect(unknown?.count).toBe(5);
  await summary.locator('[data-reason="UNKNOWN_TYPE"]').click();
  await expect(page).toHaveURL(/reason=UNKNOWN_TYPE/);
  await expect(rows).toHaveCount(5);
  await expect(page.locator("input[name=reason]")).toHaveValue("UNKNOWN_TYPE");

  // Next: the conflicts first; the button filters the table to them and focuses the conflicts panel.
  const next = summary.locator(".next-action");
  await expect(next).toHaveText("Resolve 3 conflicts");
  await next.click();
  await expect(page).toHaveURL(/bucket=conflict/);
  await expect(page).not.toHaveURL(/reason=/);
  const conflicts = page.getByRole("region", { name: "Conflicts" });
  await expect(conflicts).toBeFocused();
  await expect(conflicts).toBeInViewport();
  await expect(rows).toHaveCount(6);
  // Each row says where the file came from, its date and where that was read, and why it is here.
  const report = rows.filter({ hasText: "report-0.txt" }).first();
  await expect(report.locator("[data-cell=folder]")).toHaveText(/^(a|b)$/);
  await expect(report.locator("[data-cell=date-source]")).toHaveText("mtime");
  await expect(report.locator("[data-cell=reasons]")).toContainText("OPEN_CONFLICT");
  await expect(report.locator(".col-size")).toHaveText(/^\d+ B$/);
  for (let i = 0; i < 3; i++) {
    await conflicts.getByRole("button", { name: "Rename (add (2), (3)…)" }).first().click();
    await expect(conflicts.locator("[data-conflict]")).toHaveCount(2 - i);
  }
  // Then the files to review; once they are approved, apply.
  await expect(next).toHaveText("Review 5 files");
  await next.click();
  await expect(page).toHaveURL(/bucket=needs_review/);
  await expect(rows).toHaveCount(5);
  await page.getByRole("button", { name: "Approve selected" }).waitFor();
  for (let i = 0; i < 5; i++) await rows.nth(i).getByRole("checkbox").check();
  await page.getByRole("button", { name: "Approve selected" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Approved 5 rows" })).toBeVisible();
  await expect(summary.locator(".summary-attention")).toHaveText(
    "Nothing needs a person: every file is auto-safe.",
  );
  await expect(next).toHaveText("Apply 51 auto-safe files");
  await next.click();
  await expect(page).toHaveURL(new RegExp(`/files/jobs/${job}/apply$`));
});

test("the folder tree folds away beside the table and stays folded", async ({ page, server }) => {
  const job = await generatedPlan(server, "folders");
  await page.goto(`/files/jobs/${job}`);
  const tree = page.getByRole("navigation", { name: "Planned folders" });
  await expect(tree).toBeVisible();
  const rows = page.locator("[data-row]");
  await expect(rows.first()).toBeInViewport({ ratio: 1 });
  await page.getByRole("button", { name: "◂ Hide folders" }).click();
  await expect(tree).toHaveCount(0);
  await page.reload();
  await expect(rows.first()).toBeVisible();
  await expect(tree).toHaveCount(0);
  await expect(page.getByRole("button", { name: /▸ Folders \(\d+\)/ })).toHaveAttribute(
    "aria-expanded",
    "false",
  );
  await expectAccessible(page);
});

test("keyboard triage never acts on a row off-screen: the first key scrolls it into view", async ({
  page,
  server,
}) => {
  const job = await generatedPlan(server, "keys");
  const sent = triageRequests(page);
  await page.goto(`/files/jobs/${job}?bucket=needs_review`);
  const rows = page.locator("[data-row]");
  await expect(rows).toHaveCount(5);
  // The cursor on row 0, then the window scrolled until the table is out of sight.
  await page.locator("body").press("j");
  const first = rows.first();
  await expect(first).toHaveClass(/is-cursor/);
  await page.evaluate(() => {
    const main = document.querySelector("main");
    if (main !== null) main.style.paddingBottom = "2000px";
    const table = document.querySelector(".row-table")?.getBoundingClientRect();
    window.scrollTo(0, window.scrollY + (table?.bottom ?? 0) + 50);
  });
  await expect(first).not.toBeInViewport();
  await page.keyboard.press("s");
  await expect(page.getByRole("status").filter({ hasText: "nothing done" })).toBeVisible();
  await expect(first).toBeInViewport();
  await expect(first).toHaveClass(/is-cursor/);
  await page.waitForTimeout(300);
  expect(sent).toEqual([]);
  // Now on screen: the same key acts on that row, and says so.
  const name = (await first.locator(".col-file button").textContent()) ?? "";
  const id = await first.getAttribute("data-row");
  await page.keyboard.press("s");
  await expect(page.getByRole("status").filter({ hasText: `Skipped ${name}` })).toBeVisible();
  expect(sent).toHaveLength(1);
  expect(JSON.parse(sent[0] ?? "{}")).toMatchObject({ action: "skip", row_ids: [id] });

  // Inside the table too: the cursor row scrolled out of the table's box is brought back, not selected.
  await page.goto(`/files/jobs/${job}`);
  await expect(rows.first()).toBeInViewport();
  await page.locator("body").press("j");
  await expect(rows.first()).toHaveClass(/is-cursor/);
  await page.locator(".row-table").evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await page.keyboard.press("x");
  await expect(page.getByRole("status").filter({ hasText: "nothing done" })).toBeVisible();
  await expect(page.locator("[data-row][data-selected=true]")).toHaveCount(0);
  await expect(page.locator("[data-row].is-cursor")).toBeInViewport();
  await expect(page.locator("[data-row].is-cursor")).toHaveAttribute("aria-rowindex", "1");
  await page.keyboard.press("x");
  await expect(page.locator("[data-row][data-selected=true]")).toHaveCount(1);
  await expectAccessible(page);
});

test("a row says what its content told: a photo's camera and taken date, a track's artist, album and number", async ({
  page,
  server,
}) => {
  const source = join(server.root, "content");
  writeFile(join(source, "photo.jpg"), jpegWithCamera("Canon", "Canon EOS 5D", "2024:05:01 08:00:00"));
  writeFile(
    join(source, "song.mp3"),
    mp3WithId3({ artist: "Björk", album: "Homogenic", title: "Jóga", track: "3" }),
  );
  writeFile(join(source, "notes.txt"), "INVOICE no. 42");
  const job = await analyzeOverHttp(server.url, source, join(server.root, "content-out"));
  await page.goto(`/files/jobs/${job}`);
  const rows = page.locator("[data-row]");
  await expect(rows).toHaveCount(3);
  const photo = rows.filter({ hasText: "photo.jpg" });
  await expect(photo.locator("[data-cell=meta]")).toHaveText("· Canon EOS 5D · taken 2024-05-01");
  await expect(rows.filter({ hasText: "song.mp3" }).locator("[data-cell=meta]")).toHaveText(
    "· Björk — Homogenic, track 3",
  );
  await expect(rows.filter({ hasText: "notes.txt" }).locator("[data-cell=meta]")).toHaveCount(0);
  await expect(photo.locator("[data-cell=folder]")).toHaveText(".");
});
