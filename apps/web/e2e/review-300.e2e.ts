import { readdirSync } from "node:fs";
import { join } from "node:path";
import { analyzeOverHttp } from "../bench/seed.js";
import { expect, expectAccessible, test, writeFile } from "./harness.js";

test.use({ viewport: { width: 1280, height: 800 } });

/** Every file under `dir`, relative, recursively. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/**
 * A person who accepts the suggestions reviews and applies a generated 300-file plan from the summary in
 * at most 15 actions (each click, key press or page opened counts): the conflicts resolved one click each,
 * then the 210 files to review — more than the table loads at once — selected as "all matching" and
 * approved together, then applied.
 */
test("a 300-file plan is reviewed from the summary and applied in at most 15 actions", async ({
  page,
  server,
}) => {
  test.setTimeout(240_000);
  const source = join(server.root, "three-hundred");
  const output = join(server.root, "three-hundred-out");
  for (let i = 0; i < 80; i++) writeFile(join(source, "notes", `note-${i}.txt`), `note ${i}`);
  for (let i = 0; i < 210; i++) writeFile(join(source, "odd", `thing-${i}.zzz`), `unknown ${i}`);
  for (let i = 0; i < 5; i++) {
    writeFile(join(source, "a", `report-${i}.txt`), `first report ${i}`);
    writeFile(join(source, "b", `report-${i}.txt`), `second report ${i}, different`);
  }
  const job = await analyzeOverHttp(server.url, source, output);
  let actions = 0;
  const act = async (step: () => Promise<unknown>) => {
    actions += 1;
    await step();
  };

  await act(() => page.goto(`/files/jobs/${job}`));
  const summary = page.getByRole("region", { name: "Summary" });
  const next = summary.locator(".next-action");
  await expect(summary.locator(".summary-counts")).toHaveText(
    "300 files: 210 to review, 10 in conflict, 0 blocked, 80 auto-safe",
  );
  await expect(next).toHaveText("Resolve 5 conflicts");
  await act(() => next.click());
  const conflicts = page.getByRole("region", { name: "Conflicts" });
  for (let i = 0; i < 5; i++) {
    await act(() => conflicts.getByRole("button", { name: "Rename (add (2), (3)…)" }).first().click());
    await expect(conflicts.locator("[data-conflict]")).toHaveCount(4 - i);
  }
  await expect(next).toHaveText("Review 210 files");
  await act(() => next.click());
  await expect(page).toHaveURL(/bucket=needs_review/);
  const bulk = page.getByTestId("bulk-edit");
  await act(() => bulk.getByRole("button", { name: "Select all 210 matching rows" }).click());
  await expect(bulk).toContainText("Selected all 210 matching rows");
  await expectAccessible(page);
  await act(() => bulk.getByRole("button", { name: "Approve selected" }).click());
  await expect(bulk.getByRole("status")).toHaveText("Approved 210 matching rows");
  await expect(summary.locator(".summary-attention")).toHaveText(
    "Nothing needs a person: every file is auto-safe.",
  );
  await expect(next).toHaveText("Apply 300 auto-safe files");
  await act(() => next.click());
  await act(() => page.getByRole("button", { name: "Apply the plan" }).click());
  await expect(page.locator("[data-apply-status=succeeded][data-kind=apply]")).toBeVisible({
    timeout: 120_000,
  });
  expect(actions).toBeLessThanOrEqual(15);
  expect(filesUnder(output)).toHaveLength(300);
  expect(filesUnder(source)).toEqual([]);
});
