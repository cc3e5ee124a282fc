import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import { templates } from "../store/schema.js";
import { openTestEngine } from "./harness.js";

/*
 * The one-recommended-per-family guard, seen across processes: each contender has its own connection to
 * one database file, so the in-process write lock cannot hide a missing transaction.
 */

const here = dirname(fileURLToPath(import.meta.url));
/** The child scripts run from bundles (node alone, no TypeScript loader), each still its own process. */
const packageDir = join(here, "..", "..");
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A child process marking `templateId` recommended on `go`, holding `holdMs` mid-verb. */
async function marker(file: string, templateId: string, holdMs: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    [await bundledChild(packageDir, join(here, "recommend-race-child.ts")), file, templateId, String(holdMs)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  expect(await next()).toBe("ready");
  const result = async (): Promise<unknown> => {
    for (;;) {
      const line = await next();
      if (line.startsWith("{")) return JSON.parse(line);
    }
  };
  return { go: () => child.stdin?.write("go\n"), next, result };
}

describe("mark-recommended across processes", () => {
  it("leaves exactly one recommended version when two processes mark two versions at once", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({ name: "f", steps: [{ id: "s", type: "set", vars: { a: 1 } }] });
    const v1 = await t.engine.createTemplate({ name: "t", flow_id: flow.id });
    const v2 = await t.engine.forkTemplateVersion(v1.id, { change_note: "second" });
    const [slow, fast] = await Promise.all([marker(t.file, v1.id, 1500), marker(t.file, v2.id, 0)]);
    slow.go();
    // The slow process has cleared the family's marks and holds mid-verb; the fast one runs now.
    expect(await slow.next()).toBe("cleared");
    fast.go();
    expect(await Promise.all([slow.result(), fast.result()])).toEqual([{ ok: true }, { ok: true }]);
    const rows = await t.db.select().from(templates).where(eq(templates.familyId, v1.template_family_id));
    expect(rows.filter((r) => r.recommended)).toHaveLength(1);
    const history = await t.engine.templateHistory(v1.id);
    expect(history.items.filter((i) => i.recommended)).toHaveLength(1);
    expect(history.recommended_template_id).toBe(v2.id);
  }, 60_000);
});
