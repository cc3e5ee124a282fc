import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createInboundMessagesOtpSource } from "../core/otp-source.js";
import type { Run } from "../domain/run.js";
import { createRunsEngine, type RunsEngineOptions } from "../platform.js";
import { openTestEngine, TEST_SECRETS_KEY, waitFor } from "./harness.js";

const SECRET = "hunter2 s3cr3t/Pa55+wörd";
const CODE = "740391";
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** Every plain form of the secret and the code that must never reach the database files. */
const NEEDLES = [
  SECRET,
  CODE,
  b64(SECRET),
  b64(SECRET).replace(/=+$/, ""),
  Buffer.from(SECRET).toString("base64url"),
  encodeURIComponent(SECRET),
];

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A migrated SQLite file (WAL) and an engine over it; the path so a test can read the raw bytes. */
async function openEngine(options: Partial<RunsEngineOptions> = {}) {
  const t = await openTestEngine({ pollMs: 20, ...options });
  cleanups.push(t.close);
  return { db: t.db, client: t.client, engine: t.engine, path: t.file };
}

/**
 * A sink on 127.0.0.1 that echoes what it is sent: `/echo` answers the code and the secret back, the
 * secret in base64 (standard, URL-safe, inside a Basic-auth blob) and URL-encoded; `/use` records.
 */
async function startSink() {
  const received: Array<{ path: string; body: Record<string, unknown> }> = [];
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = (text.length > 0 ? JSON.parse(text) : {}) as Record<string, unknown>;
    received.push({ path: req.url ?? "/", body });
    const secret = String(body.secret ?? "");
    res.setHeader("Content-Type", "application/json");
    res.end(
      JSON.stringify({
        code: body.otp,
        b64: b64(secret),
        b64url: Buffer.from(secret).toString("base64url"),
        basic: b64(`user:${secret}`),
        uri: encodeURIComponent(secret),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** The raw bytes of the database file and its `-wal` and `-shm` files, as latin1 text and as base64. */
function rawFiles(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      out[`runs.db${suffix}`] = readFileSync(`${path}${suffix}`).toString("latin1");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return out;
}

/**
 * Asserts that no form of the secret or the code is in any of the files. `control` is text the run did
 * store in plain (e.g. a step id), proving the search reads the bytes that hold the data.
 */
function expectNoPlainCopy(path: string, options: { control: string; wal: boolean }) {
  const files = rawFiles(path);
  expect(Object.keys(files)).toContain("runs.db");
  const all = Object.values(files).join("");
  expect(all.includes(options.control)).toBe(true);
  if (options.wal) expect(files["runs.db-wal"]?.length ?? 0).toBeGreaterThan(0);
  for (const [name, bytes] of Object.entries(files)) {
    for (const needle of NEEDLES) {
      const latin1 = Buffer.from(needle, "utf8").toString("latin1");
      expect(bytes.includes(latin1), `${name} holds ${JSON.stringify(needle)}`).toBe(false);
    }
  }
}

async function template(engine: Awaited<ReturnType<typeof openEngine>>["engine"], steps: unknown[]) {
  const flow = await engine.createFlow({ name: "secrets", steps: steps as never });
  return engine.createTemplate({
    name: "secrets",
    flow_id: flow.id,
    params_schema: [
      { key: "shop", type: "string", required: true },
      { key: "pw", type: "secret", required: true },
    ],
  });
}

const until = (engine: { getRun(id: string): Promise<Run> }, id: string, done: (r: Run) => boolean) =>
  waitFor(() => engine.getRun(id), done, 8000);

describe("secrets and one-time codes", () => {
  it("shows a secret in a gate prompt as [redacted], and forgets it when the run ends", async () => {
    const { engine, db, path } = await openEngine();
    engine.start();
    const tpl = await template(engine, [
      { id: "ask", type: "input_gate", prompt: "Type what was sent for ${secrets.pw}" },
    ]);
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: "x", pw: SECRET } });
    const waiting = await until(engine, run.id, (r) => r.status === "waiting_user");
    expect(waiting.wait_context?.prompt).toBe("Type what was sent for [redacted]");
    const [raw] = await db.all<{ secrets: string }>(sql`SELECT secrets FROM runs_runs WHERE id = ${run.id}`);
    expect(JSON.parse(raw?.secrets ?? "{}")).toEqual({ "p:pw": expect.stringMatching(/^v1:/) });
    await engine.resumeRun(run.id, { kind: "input", input_text: "ok" });
    await until(engine, run.id, (r) => r.status === "success");
    const [after] = await db.all<{ secrets: string }>(
      sql`SELECT secrets FROM runs_runs WHERE id = ${run.id}`,
    );
    expect(after?.secrets).toBe("{}");
    expectNoPlainCopy(path, { control: "Type what was sent for [redacted]", wal: true });
  });

  it("redacts a secret in an assert message from run.error and the events", async () => {
    const { engine, path } = await openEngine();
    engine.start();
    const tpl = await template(engine, [
      { id: "check", type: "assert", value: 1, equals: 2, message: "refused ${secrets.pw} (${secrets.pw})" },
    ]);
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: "x", pw: SECRET } });
    const failed = await until(engine, run.id, (r) => r.status === "failed");
    expect(failed).toMatchObject({ reason: "assertion_failed", error: "refused [redacted] ([redacted])" });
    const events = JSON.stringify(await engine.listEvents(run.id));
    expect(events).toContain("refused [redacted] ([redacted])");
    expect(events).not.toContain("hunter2");
    expectNoPlainCopy(path, { control: "refused [redacted] ([redacted])", wal: true });
  });

  it("seals copies while live, erases the code once sent, and leaves no plain copy in the file or WAL", async () => {
    const { engine, db, client, path } = await openEngine();
    const sink = await startSink();
    engine.start();
    const tpl = await template(engine, [
      { id: "code", type: "otp_gate", prompt: "Enter the code" },
      { id: "copy", type: "set", vars: { copied: "${gate.otp_code}", pw_copy: "${secrets.pw}", n: 1 } },
      {
        id: "send",
        type: "http",
        method: "POST",
        url: "${params.shop}/echo",
        body: { otp: "${gate.otp_code}", secret: "${secrets.pw}" },
        expect: { status: [200] },
        extract: { echo_code: "$.code", b64: "$.b64", b64url: "$.b64url", basic: "$.basic", uri: "$.uri" },
      },
      { id: "confirm", type: "approval_gate", prompt: "Go on?" },
      { id: "use", type: "http", method: "POST", url: "${params.shop}/use", body: { pw: "${vars.pw_copy}" } },
      {
        id: "check",
        type: "assert",
        value: "${vars.uri}",
        equals: "nope",
        message: "got ${vars.uri} and ${vars.b64} for ${vars.copied}",
      },
    ]);
    const run = await engine.createRun(
      { template_id: tpl.id, params: { shop: sink.url, pw: SECRET } },
      { idempotencyKey: "create-1" },
    );
    await until(engine, run.id, (r) => r.status === "waiting_otp");
    await engine.resumeRun(run.id, { kind: "otp", otp_code: CODE }, { idempotencyKey: "otp-1" });
    const paused = await until(engine, run.id, (r) => r.status === "waiting_user");

    // The code was sent once and is spent: gone from the gate, its copies erased; secret copies are sealed.
    expect(sink.received[0]?.body).toEqual({ otp: CODE, secret: SECRET });
    expect(paused.vars).toEqual({
      copied: "[redacted]",
      pw_copy: "[redacted]",
      n: 1,
      echo_code: "[redacted]",
      b64: "[redacted]",
      b64url: "[redacted]",
      basic: "[redacted]",
      uri: "[redacted]",
    });
    const [mid] = await db.all<{ gate: string; secrets: string }>(
      sql`SELECT gate, secrets FROM runs_runs WHERE id = ${run.id}`,
    );
    expect(JSON.parse(mid?.gate ?? "")).toEqual({ approved_steps: [] });
    expect(Object.keys(JSON.parse(mid?.secrets ?? "")).sort()).toEqual([
      "p:pw",
      "v:b64",
      "v:b64url",
      "v:basic",
      "v:pw_copy",
      "v:uri",
    ]);
    expectNoPlainCopy(path, { control: "Enter the code", wal: true });

    // A sealed copy still works for a later step, in memory only.
    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    const failed = await until(engine, run.id, (r) => r.status === "failed");
    expect(sink.received[1]).toEqual({ path: "/use", body: { pw: SECRET } });
    expect(failed.error).toBe("got [redacted] and [redacted] for [redacted]");
    const events = JSON.stringify(await engine.listEvents(run.id));
    expect(events).toContain("got [redacted] and [redacted] for [redacted]");
    for (const needle of NEEDLES) expect(events).not.toContain(needle);
    const [end] = await db.all<{ gate: string; secrets: string; vars: string }>(
      sql`SELECT gate, secrets, vars FROM runs_runs WHERE id = ${run.id}`,
    );
    expect(end?.secrets).toBe("{}");
    expect(JSON.parse(end?.gate ?? "")).toEqual({ approved_steps: [] });

    // Before any checkpoint (the WAL holds every write) and after one (the main file holds the pages).
    expectNoPlainCopy(path, { control: "got [redacted] and", wal: true });
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(readFileSync(`${path}-wal`)).toHaveLength(0);
    expectNoPlainCopy(path, { control: "got [redacted] and", wal: false });
  });

  it("keeps a live code sealed across a pause and sends the real value when the step runs", async () => {
    const { engine, db, path } = await openEngine();
    const sink = await startSink();
    engine.start();
    const tpl = await template(engine, [
      { id: "code", type: "otp_gate" },
      { id: "hold", type: "approval_gate", prompt: "Send it?" },
      {
        id: "send",
        type: "http",
        method: "POST",
        url: "${params.shop}/echo",
        body: { otp: "${gate.otp_code}" },
      },
      { id: "after", type: "approval_gate", prompt: "Done?" },
    ]);
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: sink.url, pw: SECRET } });
    await until(engine, run.id, (r) => r.status === "waiting_otp");
    await engine.submitOtp(run.id, { otp_code: CODE });
    await until(engine, run.id, (r) => r.status === "waiting_user" && r.current_step_id === "hold");
    const [held] = await db.all<{ gate: string; secrets: string }>(
      sql`SELECT gate, secrets FROM runs_runs WHERE id = ${run.id}`,
    );
    expect(JSON.parse(held?.gate ?? "")).toEqual({ approved_steps: [], otp_code: "[redacted]" });
    expect(JSON.parse(held?.secrets ?? "")).toEqual({
      "p:pw": expect.stringMatching(/^v1:/),
      otp: expect.stringMatching(/^v1:/),
    });
    expectNoPlainCopy(path, { control: "Send it?", wal: true });
    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    await until(engine, run.id, (r) => r.status === "waiting_user" && r.current_step_id === "after");
    expect(sink.received.map((r) => r.body)).toEqual([{ otp: CODE }]);
    const [spent] = await db.all<{ gate: string; secrets: string }>(
      sql`SELECT gate, secrets FROM runs_runs WHERE id = ${run.id}`,
    );
    expect(JSON.parse(spent?.gate ?? "")).toEqual({ approved_steps: [] });
    expect(Object.keys(JSON.parse(spent?.secrets ?? ""))).toEqual(["p:pw"]);
  });

  it("redacts a code shorter than 4 characters where a var or message is exactly it", async () => {
    const { engine } = await openEngine();
    engine.start();
    const flow = await engine.createFlow({
      name: "short",
      steps: [
        { id: "code", type: "otp_gate" },
        { id: "copy", type: "set", vars: { c: "${gate.otp_code}", n: 12, label: "step 12" } },
        { id: "check", type: "assert", value: 1, equals: 2, message: "${vars.c}" },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    await until(engine, run.id, (r) => r.status === "waiting_otp");
    await engine.resumeRun(run.id, { kind: "otp", otp_code: "12" });
    const failed = await until(engine, run.id, (r) => r.status === "failed");
    expect(failed.vars).toEqual({ c: "[redacted]", n: "[redacted]", label: "step 12" });
    expect(failed.error).toBe("[redacted]");
  });

  it("seals inbound message bodies and takes codes from them without a plain copy", async () => {
    const { engine, db, path } = await openEngine();
    const source = createInboundMessagesOtpSource({ db, secretsKey: TEST_SECRETS_KEY });
    engine.start();
    const flow = await engine.createFlow({
      name: "sms",
      steps: [
        { id: "code", type: "otp_gate" },
        { id: "copy", type: "set", vars: { c: "${gate.otp_code}" } },
      ],
    });
    const tpl = await engine.createTemplate({
      name: "sms",
      flow_id: flow.id,
      policies: { otp: { source: "inbound_messages" } },
    });
    const run = await engine.createRun({ template_id: tpl.id });
    await until(engine, run.id, (r) => r.status === "waiting_otp");
    await source.receive({ run_id: run.id, body: `Your code is ${CODE}` });
    await engine.submitOtp(run.id, {});
    const done = await until(engine, run.id, (r) => r.status === "success");
    expect(done.vars).toEqual({ c: "[redacted]" });
    const [msg] = await db.all<{ body: string }>(sql`SELECT body FROM runs_inbound_messages`);
    expect(msg?.body).toBe("[redacted]");
    expectNoPlainCopy(path, { control: "otp_required", wal: true });
  });

  it("fails a run whose sealed secret was tampered with, and keeps serving other runs", async () => {
    const { engine, db } = await openEngine();
    const tpl = await template(engine, [{ id: "use", type: "set", vars: { v: "${secrets.pw}" } }]);
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: "x", pw: SECRET } });
    const [raw] = await db.all<{ secrets: string }>(sql`SELECT secrets FROM runs_runs WHERE id = ${run.id}`);
    const slots = JSON.parse(raw?.secrets ?? "{}") as Record<string, string>;
    const sealed = slots["p:pw"] ?? "";
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith("AA") ? "BB" : "AA"}`;
    await db.run(
      sql`UPDATE runs_runs SET secrets = ${JSON.stringify({ "p:pw": flipped })} WHERE id = ${run.id}`,
    );
    const other = await engine.createRun({ template_id: tpl.id, params: { shop: "x", pw: "another-pw" } });
    engine.start();
    const failed = await until(engine, run.id, (r) => r.status === "failed");
    expect(failed.reason).toBe("secret_unreadable");
    expect(failed.error).toMatch(/^SECRET_UNREADABLE: use: .*p:pw/);
    expect(await until(engine, other.id, (r) => r.status === "success")).toMatchObject({
      vars: { v: "[redacted]" },
    });
  });

  it("fails a run whose secrets were sealed under another installation's key", async () => {
    const first = await openEngine();
    const tpl = await template(first.engine, [{ id: "use", type: "set", vars: { v: "${secrets.pw}" } }]);
    const run = await first.engine.createRun({ template_id: tpl.id, params: { shop: "x", pw: SECRET } });
    const other = createRunsEngine({
      db: first.db,
      secretsKey: Buffer.alloc(32, 8),
      leaseMs: 1000,
      pollMs: 20,
    });
    cleanups.push(() => other.stop());
    other.start();
    expect(await until(other, run.id, (r) => r.status === "failed")).toMatchObject({
      reason: "secret_unreadable",
    });
  });
});
