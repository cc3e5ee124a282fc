import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import type { FlowInput } from "../domain/flow.js";
import { openTestEngine, startShop, waitFor } from "./harness.js";

const TO = "+44 7700 900001";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function checkoutFlow(): FlowInput {
  return {
    name: "checkout",
    steps: [
      { id: "cart", type: "http", method: "POST", url: "${params.shop}/cart", expect: { status: [200] } },
      { id: "code", type: "otp_gate", prompt: "Enter the code we texted you" },
      {
        id: "pay",
        type: "http",
        method: "POST",
        url: "${params.shop}/pay",
        body: { otp: "${gate.otp_code}" },
        expect: { status: [200] },
      },
    ],
  };
}

const here = dirname(fileURLToPath(import.meta.url));
/** The child scripts run from bundles (node alone, no TypeScript loader), each still its own process. */
const packageDir = join(here, "..", "..");

/** A child process with its own engine over `file`, delivering SMS `<tag>-<n>` on `go(n)`. */
async function smsProcess(file: string, tag: string, code: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [await bundledChild(packageDir, join(here, "sms-race-child.ts")), file, tag, code],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
  expect((await lines.next()).value).toBe("ready");
  return {
    go: (n: number) => child.stdin?.write(`go ${n}\n`),
    result: async () =>
      JSON.parse(String((await lines.next()).value)) as { run_id?: string | null; error?: string },
  };
}

type Engine = Awaited<ReturnType<typeof openTestEngine>>["engine"];

async function setup(otp: Record<string, unknown> = {}) {
  const t = await openTestEngine();
  cleanups.push(t.close);
  const shop = await startShop();
  cleanups.push(shop.close);
  t.engine.start();
  const flow = await t.engine.createFlow(checkoutFlow());
  const tpl = await t.engine.createTemplate({
    name: "sms checkout",
    flow_id: flow.id,
    params_schema: [{ key: "shop", type: "string", required: true }],
    policies: { otp: { source: "inbound_sms", to: TO, ...otp } },
  });
  const start = async (wait = true) => {
    const run = await t.engine.createRun({ template_id: tpl.id, params: { shop: shop.url } });
    if (!wait) return run;
    return waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "waiting_otp",
    );
  };
  return { ...t, shop, start };
}

function sms(id: string, text: string, extra: Partial<{ sender: string; recipient: string }> = {}) {
  return {
    provider: "vonage",
    message_id: id,
    sender: "447700900999",
    recipient: "447700900001",
    text,
    ...extra,
  };
}

async function resumes(engine: Engine, runId: string): Promise<number> {
  const events = await engine.listEvents(runId);
  return events.items.filter((e) => e.type === "gate_resolved").length;
}

describe("inbound SMS feeds the OTP gate", () => {
  it("resumes the waiting run with the code in the same transaction that stores the message", async () => {
    const { engine, db, start } = await setup();
    const run = await start();
    const receipt = await engine.receiveSms(sms("m-1", "Your shop code is 123456. Do not share it."));
    expect(receipt).toEqual({ ok: true, duplicate: false, message_id: "m-1", run_id: run.id });
    // Committed together: the run left waiting_otp before receiveSms returned.
    expect((await engine.getRun(run.id)).status).not.toBe("waiting_otp");
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(done.status).toBe("success");
    const stored = await db.all<{ body: string; run_id: string }>(
      sql`SELECT body, run_id FROM runs_inbound_messages`,
    );
    expect(stored).toEqual([{ body: "[redacted]", run_id: run.id }]);
    const audit = await engine.listInboundCallbacks();
    expect(audit.items).toMatchObject([
      { outcome: "accepted", message_id: "m-1", run_id: run.id, reason: null },
    ]);
    expect(JSON.stringify(await engine.listEvents(run.id))).not.toContain("123456");
  });

  it("leaves runs alone for another number, another sender, or a text without a code", async () => {
    const { engine, start } = await setup({ sender: "VONAGESHOP" });
    const run = await start();
    await engine.receiveSms(sms("a", "code 123456", { sender: "VONAGESHOP", recipient: "447700900002" }));
    await engine.receiveSms(sms("b", "code 123456", { sender: "someone-else" }));
    await engine.receiveSms(sms("c", "no code here", { sender: "VONAGESHOP" }));
    expect((await engine.getRun(run.id)).status).toBe("waiting_otp");
    const audit = await engine.listInboundCallbacks();
    expect(audit.items.map((i) => i.reason)).toEqual(["no_waiting_run", "no_waiting_run", "no_waiting_run"]);
    const receipt = await engine.receiveSms(sms("d", "VONAGESHOP: 123456", { sender: "vonageshop" }));
    expect(receipt.run_id).toBe(run.id);
  });

  it("takes the code from a custom RE2 pattern's first group", async () => {
    const { engine, start } = await setup({ code_pattern: "PIN ([0-9]{6})" });
    const run = await start();
    expect((await engine.receiveSms(sms("x", "Ref 999999, PIN 123456"))).run_id).toBe(run.id);
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
  });

  it("answers a repeated message id as a duplicate that resumes nothing (dedup guard)", async () => {
    const { engine, start } = await setup();
    const first = await start();
    await engine.stop();
    const second = await start(false);
    // A second waiting run: without the dedup, the repeat would resume it.
    engine.start();
    await waitFor(
      () => engine.getRun(second.id),
      (r) => r.status === "waiting_otp",
    );
    await engine.stop();
    const once = await engine.receiveSms(sms("dup", "123456"));
    const again = await engine.receiveSms(sms("dup", "123456"));
    expect(once.duplicate).toBe(false);
    expect(again).toEqual({ ok: true, duplicate: true, message_id: "dup", run_id: null });
    expect([await resumes(engine, first.id), await resumes(engine, second.id)]).toEqual([1, 0]);
    expect((await engine.getRun(second.id)).status).toBe("waiting_otp");
    const audit = await engine.listInboundCallbacks();
    expect(audit.items.map((i) => i.outcome)).toEqual(["duplicate", "accepted"]);
  });

  it("resumes a run once when two messages race in from two processes (compare-and-set guard)", async () => {
    const { engine, file, start } = await setup();
    const children = await Promise.all([smsProcess(file, "a", "123456"), smsProcess(file, "b", "123456")]);
    // One waiting run a round (a second waiting run would rightly take the second message).
    for (let i = 0; i < 3; i++) {
      const run = await start();
      for (const child of children) child.go(i);
      const receipts = await Promise.all(children.map((c) => c.result()));
      expect(
        receipts.filter((x) => "error" in x),
        JSON.stringify(receipts),
      ).toEqual([]);
      expect(receipts.map((x) => x.run_id).sort()).toEqual([null, run.id].sort());
      expect(receipts.filter((x) => x.run_id === run.id)).toHaveLength(1);
      expect(await resumes(engine, run.id)).toBe(1);
    }
    const audit = await engine.listInboundCallbacks({ limit: 100 });
    expect(audit.items).toHaveLength(6);
  });

  it("gives a message that arrived before the gate opened to the run once it waits", async () => {
    const { engine, start } = await setup();
    await engine.stop();
    const run = await start(false);
    const receipt = await engine.receiveSms(sms("early", "123456"));
    expect(receipt.run_id).toBeNull();
    engine.start();
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(await resumes(engine, done.id)).toBe(1);
  });

  it("refuses blank text and audits it; refuses an inbound_sms policy without a number or with a bad pattern", async () => {
    const { engine } = await setup();
    await expect(engine.receiveSms(sms("blank", "   "))).rejects.toMatchObject({ code: "REQUEST_INVALID" });
    expect((await engine.listInboundCallbacks()).items).toMatchObject([
      { outcome: "rejected", reason: "text_empty" },
    ]);
    const flow = await engine.createFlow(checkoutFlow());
    await expect(
      engine.createTemplate({ name: "t", flow_id: flow.id, policies: { otp: { source: "inbound_sms" } } }),
    ).rejects.toMatchObject({ code: "TEMPLATE_INVALID" });
    await expect(
      engine.createTemplate({
        name: "t",
        flow_id: flow.id,
        policies: { otp: { source: "inbound_sms", to: TO, code_pattern: "(a)\\1" } },
      }),
    ).rejects.toMatchObject({ code: "TEMPLATE_INVALID" });
  });
});
