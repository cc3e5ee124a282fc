import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";
import { analyzeOverHttp } from "../bench/seed.js";
import { expect, expectAccessible, test, writeFile } from "./harness.js";

const EXAMPLE = fileURLToPath(
  new URL("../../../packages/comparison/examples/comparison.json", import.meta.url),
);
test.use({ serverEnv: { VETTED_COMPARISON_FILE: EXAMPLE } });

/** The widths a person uses the console at: a laptop and a phone. */
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/** The innermost elements that reach past `width` (or whose text does) without a scroller to hold them. */
function whatSpills(page: Page, width: number): Promise<string[]> {
  return page.evaluate((w) => {
    const clipped = (el: Element): boolean => {
      for (let p = el.parentElement; p !== null; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== "visible")
          return p !== document.documentElement && p !== document.body;
      }
      return false;
    };
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const r = el.getBoundingClientRect();
      const spills = el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible";
      if ((r.right <= w + 1 && !(spills && r.left + el.scrollWidth > w + 1)) || clipped(el)) continue;
      const cls = typeof el.className === "string" ? el.className : "";
      out.push(`${el.tagName}.${cls} r=${Math.round(r.right)} "${(el.textContent ?? "").slice(0, 40)}"`);
    }
    return out.slice(-6);
  }, width);
}

/**
 * Every page of the console, with data in it (a reviewed folder, a run waiting at a gate, a flow and a
 * template, the comparison document), at 1280 and at 390 px: axe finds no serious or critical violation
 * and nothing makes the page wider than the screen.
 */
test("every page is accessible and fits the screen at 1280 and 390 px", async ({ page, server }) => {
  test.setTimeout(240_000);
  const source = join(server.root, "every-page");
  writeFile(join(source, "a", "report.txt"), "first report");
  writeFile(join(source, "b", "report.txt"), "second report, different");
  for (let i = 0; i < 4; i++) writeFile(join(source, `note-${i}.txt`), `note ${i}`);
  const jobId = await analyzeOverHttp(server.url, source, join(server.root, "every-page-out"));
  const flow = await server.api<{ id: string }>("POST", "/api/flows", {
    name: "Approve a thing",
    steps: [{ id: "ok", type: "approval_gate", prompt: "Go ahead?" }],
  });
  const tpl = await server.api<{ id: string }>("POST", "/api/templates", {
    name: "Approve with a note",
    flow_id: flow.id,
    params_schema: [{ key: "note", type: "string", required: true }],
  });
  const run = await server.api<{ id: string }>("POST", "/api/runs", {
    template_id: tpl.id,
    params: { note: "hello" },
  });

  const pages = [
    "/",
    "/files",
    `/files/jobs/${jobId}`,
    `/files/jobs/${jobId}/apply`,
    "/files/inbox",
    "/files/preferences",
    "/runs",
    `/runs/${run.id}`,
    "/flows",
    `/flows/${flow.id}`,
    "/templates",
    `/templates/${tpl.id}`,
    "/notifications",
    "/comparison",
  ];
  const problems: string[] = [];
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    for (const path of pages) {
      await page.goto(path);
      await expect(page.locator("main h1").first()).toBeVisible();
      await expect(page.locator("[aria-busy=true]")).toHaveCount(0);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      if (wide > size.width) {
        const culprits = await whatSpills(page, size.width);
        problems.push(`${path} at ${size.width} px is ${wide} px wide: ${culprits.join(" | ")}`);
      }
      try {
        await expectAccessible(page);
      } catch (error) {
        problems.push(`${path} at ${size.width} px: ${String(error).split("\n").slice(0, 8).join(" ")}`);
      }
    }
  }
  expect(problems).toEqual([]);
});
