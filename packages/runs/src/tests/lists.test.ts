import { CursorInvalidError, MAX_PAGE_LIMIT } from "@vetted/store";
import { afterEach, describe, expect, it } from "vitest";
import { openTestEngine } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function seeded() {
  const t = await openTestEngine();
  cleanups.push(t.close);
  const flows = [];
  for (let i = 0; i < 5; i++) {
    flows.push(await t.engine.createFlow({ name: `f${i}`, steps: [{ id: "s", type: "set", vars: { i } }] }));
  }
  const first = flows[0];
  if (first === undefined) throw new Error("no flow");
  const template = await t.engine.createTemplate({ name: "t", flow_id: first.id });
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await t.engine.createRun({ template_id: template.id, params: {} }));
  return { t, flows, template, runs };
}

describe("every runs list pages the same way", () => {
  it("walks flows, runs and events page by page with opaque cursors", async () => {
    const { t, flows, runs } = await seeded();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await t.engine.listFlows({ limit: 2, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.items.map((f) => f.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(flows.map((f) => f.id).reverse());
    const runPage = await t.engine.listRuns({ limit: 2 });
    expect(runPage.items).toHaveLength(2);
    const rest = await t.engine.listRuns({ cursor: runPage.next_cursor ?? "" });
    expect([...runPage.items, ...rest.items].map((r) => r.id)).toEqual(runs.map((r) => r.id).reverse());
    const run = runs[0];
    if (run === undefined) throw new Error("no run");
    const events = await t.engine.listEvents(run.id, { limit: 1 });
    expect(events.items.map((e) => e.type)).toEqual(["run_created"]);
  });

  it("refuses a malformed or foreign cursor with CURSOR_INVALID on every list", async () => {
    const { t, runs } = await seeded();
    const flowCursor = (await t.engine.listFlows({ limit: 1 })).next_cursor ?? "";
    const run = runs[0];
    if (run === undefined) throw new Error("no run");
    const lists = [
      (cursor: string) => t.engine.listFlows({ cursor }),
      (cursor: string) => t.engine.listTemplates({ cursor }),
      (cursor: string) => t.engine.listRuns({ cursor }),
      (cursor: string) => t.engine.listEvents(run.id, { cursor }),
    ];
    for (const list of lists) {
      for (const cursor of ["garbage!", "1e309", Buffer.from("12:abc").toString("base64url")]) {
        await expect(list(cursor)).rejects.toBeInstanceOf(CursorInvalidError);
        await expect(list(cursor)).rejects.toMatchObject({ code: "CURSOR_INVALID" });
      }
    }
    // A cursor of one list is refused by every other.
    await expect(t.engine.listRuns({ cursor: flowCursor })).rejects.toMatchObject({ code: "CURSOR_INVALID" });
    await expect(t.engine.listTemplates({ cursor: flowCursor })).rejects.toMatchObject({
      code: "CURSOR_INVALID",
    });
    await expect(t.engine.listEvents(run.id, { cursor: flowCursor })).rejects.toMatchObject({
      code: "CURSOR_INVALID",
    });
  });

  it("caps every page at the one documented maximum", async () => {
    const { t } = await seeded();
    const page = await t.engine.listFlows({ limit: MAX_PAGE_LIMIT * 10 });
    expect(page.items).toHaveLength(5);
    expect(page.next_cursor).toBeNull();
  });
});

describe("pageLimit", () => {
  it("defaults to DEFAULT_PAGE_LIMIT and caps at MAX_PAGE_LIMIT", async () => {
    const { pageLimit } = await import("../core/lists.js");
    const { DEFAULT_PAGE_LIMIT } = await import("@vetted/store");
    expect(pageLimit(undefined)).toBe(DEFAULT_PAGE_LIMIT);
    expect(pageLimit(MAX_PAGE_LIMIT + 1)).toBe(MAX_PAGE_LIMIT);
    expect(pageLimit(7)).toBe(7);
  });
});
