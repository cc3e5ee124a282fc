import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { runTransaction } from "@vetted/store";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import { createWebhooksEngine } from "../lanes/webhooks/webhooks-engine.js";
import { webhookDeliveries } from "../store/schema.js";
import { startReceiver } from "../testing/webhook-receiver.js";
import { codeOf, openTestEngine, TEST_SECRETS_KEY, waitFor } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
/** The child scripts run from bundles (node alone, no TypeScript loader), each still its own process. */
const packageDir = join(here, "..", "..");
const SECRET = "whsec_test_0123456789abcdef";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const t = await openTestEngine();
  cleanups.push(t.close);
  const hooks = createWebhooksEngine({
    db: t.db,
    secretsKey: TEST_SECRETS_KEY,
    pollMs: 20,
    retry: { baseMs: 100 },
  });
  cleanups.push(() => hooks.stop());
  const receiver = await startReceiver();
  cleanups.push(receiver.close);
  return { t, hooks, receiver };
}

const OTP_FLOW = { name: "otp", steps: [{ id: "code", type: "otp_gate" as const, prompt: "Code?" }] };

describe("webhook outbox and dispatcher", { timeout: 160_000 }, () => {
  it("writes a run.waiting delivery in the transaction that pauses the run, and signs it when sent", async () => {
    const { t, hooks, receiver } = await setup();
    const hook = await hooks.createWebhook({
      url: `${receiver.url}/in`,
      events: ["run.waiting"],
      secret: SECRET,
    });
    expect(JSON.stringify(hook)).not.toContain(SECRET);
    const flow = await t.engine.createFlow(OTP_FLOW);
    const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
    t.engine.start();
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "waiting_otp",
    );
    // Written with the transition, before any dispatcher ran.
    const pending = await t.db.select().from(webhookDeliveries);
    expect(pending.map((d) => [d.eventType, d.status])).toEqual([["run.waiting", "pending"]]);
    hooks.start();
    await waitFor(
      async () => receiver.received.length,
      (n) => n === 1,
    );
    const got = receiver.received[0];
    const [tPart, vPart] = String(got?.headers["x-vetted-signature"]).split(",");
    const ts = tPart?.slice(2) ?? "";
    const expected = createHmac("sha256", SECRET)
      .update(`${ts}.${got?.body ?? ""}`)
      .digest("hex");
    expect(vPart).toBe(`v1=${expected}`);
    expect(got?.headers["x-vetted-event"]).toBe("run.waiting");
    expect(got?.headers["x-vetted-delivery"]).toBe(pending[0]?.id);
    expect(JSON.parse(got?.body ?? "{}")).toMatchObject({ type: "run.waiting", data: { run_id: run.id } });
  });

  it("queues run.failed besides run.finished for a failed run, and only run.finished for a cancelled one", async () => {
    const { t, hooks, receiver } = await setup();
    const failedOnly = await hooks.createWebhook({
      url: `${receiver.url}/f`,
      events: ["run.failed"],
      secret: SECRET,
    });
    const both = await hooks.createWebhook({
      url: `${receiver.url}/b`,
      events: ["run.finished", "run.failed"],
      secret: SECRET,
    });
    const failing = await t.engine.createFlow({
      name: "denied",
      steps: [{ id: "meta", type: "http", method: "GET", url: "http://169.254.169.254/latest" }],
    });
    const otp = await t.engine.createFlow(OTP_FLOW);
    const failed = await t.engine.createRun({ flow_id: failing.id, params: {} });
    const waiting = await t.engine.createRun({ flow_id: otp.id, params: {} });
    t.engine.start();
    await waitFor(
      () => t.engine.getRun(failed.id),
      (r) => r.status === "failed",
    );
    await waitFor(
      () => t.engine.getRun(waiting.id),
      (r) => r.status === "waiting_otp",
    );
    await t.engine.cancelRun(waiting.id);
    const rows = await t.db.select().from(webhookDeliveries);
    const of = (hookId: string) =>
      rows
        .filter((d) => d.webhookId === hookId)
        .map((d) => d.eventType)
        .sort();
    expect(of(failedOnly.id)).toEqual(["run.failed"]);
    expect(of(both.id)).toEqual(["run.failed", "run.finished", "run.finished"]);
  });

  it("refuses a webhook URL on a cloud metadata or link-local address", async () => {
    const { hooks } = await setup();
    for (const url of [
      "http://169.254.169.254/latest",
      "http://[fe80::1]/x",
      "http://metadata.google.internal/",
    ]) {
      expect(await codeOf(hooks.createWebhook({ url, events: ["run.finished"], secret: SECRET }))).toBe(
        "WEBHOOK_URL_DENIED",
      );
    }
  });

  it("refuses a protected provider (by name or address), this server's port on [::1] and a URL with credentials", async () => {
    const { t } = await setup();
    const lookups: string[] = [];
    const hooks = createWebhooksEngine({
      db: t.db,
      secretsKey: TEST_SECRETS_KEY,
      protectedDomains: ["stripe.com", "10.9.8.7"],
      outbound: {
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: "10.9.8.7", family: 4 }];
        },
      },
    });
    hooks.setServerAddress("127.0.0.1", 8787);
    const refusal = async (url: string) => {
      try {
        await hooks.createWebhook({ url, events: ["run.finished"], secret: SECRET });
      } catch (err) {
        return err as { code: string; message: string; details: unknown };
      }
      throw new Error(`${url} was accepted`);
    };
    const stripe = await refusal("https://api.stripe.com/v1/hooks");
    expect(stripe.code).toBe("WEBHOOK_URL_DENIED");
    expect(stripe.message).toContain("api.stripe.com is the protected payment provider stripe.com");
    expect(lookups).toEqual([]);
    const resolved = await refusal("https://pay.example.test/in");
    expect(resolved.message).toContain("resolves to the protected payment provider 10.9.8.7");
    for (const url of ["http://[::1]:8787/api/flows", "http://127.0.0.2:8787/", "http://localhost:8787/"]) {
      const self = await refusal(url);
      expect([self.code, self.message]).toEqual([
        "WEBHOOK_URL_DENIED",
        expect.stringContaining("the server's own address and port"),
      ]);
    }
    const credentials = await refusal("https://user:hunter2pass@hooks.example.test/in");
    expect(credentials.code).toBe("WEBHOOK_URL_DENIED");
    expect(credentials.message).toContain("carries credentials");
    expect(JSON.stringify([credentials.message, credentials.details])).not.toContain("hunter2pass");
    expect(await hooks.listWebhooks()).toMatchObject({ items: [] });
  });

  it("never delivers to a URL that became a protected provider: the delivery fails at once, nothing sent", async () => {
    const { t, hooks, receiver } = await setup();
    const hook = await hooks.createWebhook({
      url: `${receiver.url}/in`,
      events: ["task.finished"],
      secret: SECRET,
    });
    const guarded = createWebhooksEngine({
      db: t.db,
      secretsKey: TEST_SECRETS_KEY,
      protectedDomains: ["127.0.0.1"],
      retry: { baseMs: 100 },
    });
    cleanups.push(() => guarded.stop());
    await runTransaction(t.db, (tx) =>
      guarded.taskFinishedHook(tx, { task_id: "tsk_1", command_id: "c", status: "success" }),
    );
    await guarded.dispatchOnce();
    const delivery = await waitFor(
      async () => (await guarded.listDeliveries(hook.id)).items[0],
      (d) => d !== undefined && d.status !== "pending",
    );
    expect(delivery).toMatchObject({ status: "failed", attempts: 1, last_status_code: null });
    expect(delivery?.last_error).toContain("protected payment provider 127.0.0.1");
    expect(receiver.received).toHaveLength(0);
  });

  it("sends each delivery once when two dispatcher processes share the database", async () => {
    const { t, hooks } = await setup();
    const receiver = await startReceiver({ delayMs: 30 });
    cleanups.push(receiver.close);
    await hooks.createWebhook({ url: receiver.url, events: ["task.finished"], secret: SECRET });
    const queue = hooks.taskFinishedHook;
    const total = 40;
    await runTransaction(t.db, async (tx) => {
      for (let i = 0; i < total; i++)
        await queue(tx, { task_id: `tsk_${i}`, command_id: "c", status: "success" });
    });
    const children = await Promise.all([dispatcher(t.file), dispatcher(t.file)]);
    for (const c of children) c.send("go");
    const ids = () => receiver.received.map((r) => String(r.headers["x-vetted-delivery"]));
    await waitFor(
      async () => new Set(ids()).size,
      (n) => n === total,
      60_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all(children.map((c) => c.stop()));
    const counts = new Map<string, number>();
    for (const id of ids()) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
    expect(ids()).toHaveLength(total);
  });
});

/** A dispatcher child process over `file`, started on `go`. */
async function dispatcher(file: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [await bundledChild(packageDir, join(here, "webhook-race-child.ts")), file],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
  expect((await lines.next()).value).toBe("ready");
  return {
    send: (line: string) => child.stdin?.write(`${line}\n`),
    async stop() {
      child.stdin?.write("stop\n");
      await lines.next();
    },
  };
}
