import { join } from "node:path";
import type { Page } from "@playwright/test";
import { analyzeOverHttp } from "../bench/seed.js";
import { expect, test, writeFile } from "./harness.js";

/**
 * A review page's first rows are asked for by the console's small early entry, beside the main bundle
 * (src/early.ts, features/fileorg/first-rows.ts): once, and used only for the query the router reads.
 */
test.use({ viewport: { width: 1280, height: 800 } });

/** The first-page manifest requests (no cursor) the page sends from now on, as their query strings. */
function firstPageRequests(page: Page): string[] {
  const sent: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (/^\/api\/jobs\/[^/]+\/manifest$/.test(url.pathname) && !url.searchParams.has("cursor"))
      sent.push(url.search);
  });
  return sent;
}

test("the first rows are asked for once, by the early entry, before the main bundle runs", async ({
  page,
  server,
}) => {
  const source = join(server.root, "early");
  for (let i = 0; i < 4; i++) writeFile(join(source, `note-${i}.txt`), `note ${i}`);
  for (let i = 0; i < 2; i++) writeFile(join(source, `trip-${i}.txt`), `trip ${i}`);
  const job = await analyzeOverHttp(server.url, source, join(server.root, "early-out"));
  const sent = firstPageRequests(page);
  // The main bundle is held back until the rows request has left: only the early entry can send it.
  let rowsAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => {
    rowsAsked = resolve;
  });
  page.on("request", (r) => {
    if (/\/api\/jobs\/[^/]+\/manifest\?/.test(r.url())) rowsAsked();
  });
  const releasedBy: string[] = [];
  await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
    const wait = new Promise<string>((r) => setTimeout(() => r("timeout"), 10_000));
    releasedBy.push(await Promise.race([asked.then(() => "rows request"), wait]));
    await route.continue();
  });
  await page.goto(`/files/jobs/${job}`);
  await expect(page.locator("[data-row]")).toHaveCount(6);
  expect(sent).toEqual(["?limit=200"]);
  expect(releasedBy).toEqual(["rows request"]);
  await page.unroute(/\/assets\/index-[\w-]+\.js$/);

  // `?q=true` is read by the router as the boolean true, which is no text filter: the early answer (asked
  // for with text=true, matching no row) is not the router's query, so the page asks for its own and shows
  // every row.
  sent.length = 0;
  await page.goto(`/files/jobs/${job}?q=true`);
  await expect(page.locator("[data-row]")).toHaveCount(6);
  expect(sent).toEqual(["?limit=200&text=true", "?limit=200"]);

  // A filter typed into the page is the router's own: one request, the matching rows.
  sent.length = 0;
  await page.getByLabel("Text").fill("trip");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.locator("[data-row]")).toHaveCount(2);
  expect(sent).toEqual(["?limit=200&text=trip"]);
});
