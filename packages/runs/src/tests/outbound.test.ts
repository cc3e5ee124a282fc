import { afterEach, describe, expect, it } from "vitest";
import type { FlowInput } from "../domain/flow.js";
import { parseProtectedDomains } from "../index.js";
import type { RunsEngineOptions } from "../platform.js";
import { openTestEngine, waitFor } from "./harness.js";
import { startSink } from "./sink.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(options: Partial<RunsEngineOptions> = {}) {
  const sink = await startSink();
  const t = await openTestEngine(options);
  cleanups.push(t.close, sink.close);
  t.engine.start();
  return { ...t, sink };
}

function pay(url: string): FlowInput {
  return {
    name: "pay",
    steps: [{ id: "pay", type: "http", method: "POST", url, body: { amount: 1 }, expect: { status: [200] } }],
  };
}

async function runOf(t: Awaited<ReturnType<typeof setup>>, url: string, until: (s: string) => boolean) {
  const flow = await t.engine.createFlow(pay(url));
  const run = await t.engine.createRun({ flow_id: flow.id });
  return waitFor(
    () => t.engine.getRun(run.id),
    (r) => until(r.status),
  );
}

const settled = (s: string) => s !== "queued" && s !== "running";

describe("the protected provider gate, with 127.0.0.1 protected", () => {
  it.each([
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[0:0:0:0:0:ffff:127.0.0.1]",
    "localhost",
    "LOCALHOST.",
    "2130706433",
    "0x7f.1",
    "0177.0.0.1",
    // The unspecified address connects to loopback.
    "0",
    "0.0.0.0",
    "[::ffff:0.0.0.0]",
  ])("pauses a request to %s before it reaches the provider", async (host) => {
    const t = await setup({ protectedDomains: ["127.0.0.1"] });
    const run = await runOf(t, `http://${host}:${t.sink.port}/pay`, settled);
    expect(run.status).toBe("waiting_user");
    expect(run.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: "127.0.0.1",
      gate_required_by_policy: true,
    });
    expect(t.sink.received).toHaveLength(0);
  });

  it("pauses a request to a name that resolves to the protected address, and sends it there once approved", async () => {
    const lookups: string[] = [];
    const t = await setup({
      protectedDomains: ["127.0.0.1"],
      outbound: {
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: "::ffff:127.0.0.1", family: 6 }];
        },
      },
    });
    const run = await runOf(t, `http://shop.invalid:${t.sink.port}/pay`, settled);
    expect(run).toMatchObject({ status: "waiting_user", wait_context: { provider_domain: "127.0.0.1" } });
    expect(t.sink.received).toHaveLength(0);
    await t.engine.resumeRun(run.id, { kind: "approval", approved: true });
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(t.sink.received).toEqual([{ method: "POST", path: "/pay", host: `shop.invalid:${t.sink.port}` }]);
  });
});

describe("the protected provider gate, for a name that does not resolve", () => {
  it("pauses for approval before any lookup, and looks the name up only once approved", async () => {
    const lookups: string[] = [];
    const t = await setup({
      // As VETTED_PROTECTED_PROVIDER_DOMAINS=pay.vetted-test.invalid configures it.
      protectedDomains: parseProtectedDomains("pay.vetted-test.invalid"),
      outbound: {
        lookup: async (name) => {
          lookups.push(name);
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
        },
      },
    });
    const run = await runOf(t, "https://pay.vetted-test.invalid/charge", settled);
    expect(run).toMatchObject({
      status: "waiting_user",
      reason: null,
      error: null,
      wait_context: {
        reason_code: "provider_protected_payment_step",
        provider_domain: "pay.vetted-test.invalid",
        gate_required_by_policy: true,
        allowed_resume_kinds: ["approval"],
      },
    });
    expect(lookups).toEqual([]);
    // Approved, the step goes on: now the name is looked up, and the step fails on it.
    await t.engine.resumeRun(run.id, { kind: "approval", approved: true });
    const failed = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => settled(r.status),
    );
    expect(failed.status).toBe("failed");
    expect(failed.error).toContain("pay.vetted-test.invalid does not resolve");
    expect(lookups).toEqual(["pay.vetted-test.invalid"]);
  });
});

describe("the outbound allow/deny policy", () => {
  it("fails the step with OUTBOUND_DENIED, naming host and rule, for a host in a denied CIDR", async () => {
    const t = await setup({ outbound: { deny: ["127.0.0.0/8"] } });
    const run = await runOf(t, `http://[::ffff:7f00:1]:${t.sink.port}/pay`, settled);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("OUTBOUND_DENIED");
    expect(run.error).toContain("127.0.0.1");
    expect(run.error).toContain("127.0.0.0/8");
    expect(t.sink.received).toHaveLength(0);
  });

  it("allows only the allow list when one is set", async () => {
    const t = await setup({ outbound: { allow: ["10.0.0.0/8", "shop.example"] } });
    const run = await runOf(t, `${t.sink.url}/pay`, settled);
    expect(run.error).toContain("not in VETTED_HTTP_ALLOW");
    expect(t.sink.received).toHaveLength(0);
  });

  it("lets loopback through by default (local sinks)", async () => {
    const t = await setup();
    const run = await runOf(t, `${t.sink.url}/pay`, settled);
    expect(run.status).toBe("success");
    expect(t.sink.received).toHaveLength(1);
  });

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://2852039166/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal./computeMetadata/v1/",
  ])("denies link-local and cloud metadata addresses by default: %s", async (url) => {
    const lookups: string[] = [];
    const t = await setup({
      outbound: {
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: "127.0.0.1", family: 4 }];
        },
      },
    });
    const run = await runOf(t, url, settled);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("OUTBOUND_DENIED");
    expect(lookups).toEqual([]);
  });

  it("denies a name that resolves into a denied range", async () => {
    const t = await setup({
      outbound: { lookup: async () => [{ address: "169.254.169.254", family: 4 }] },
    });
    const run = await runOf(t, "http://innocent.invalid/", settled);
    expect(run.error).toContain("OUTBOUND_DENIED: requests to innocent.invalid are denied (169.254.0.0/16)");
  });

  it("denies the server's own listening address and port, but not another port on it", async () => {
    const t = await setup();
    t.engine.setServerAddress("127.0.0.1", t.sink.port);
    const own = await runOf(t, `http://localhost:${t.sink.port}/api/runs`, settled);
    expect(own.error).toContain("the server's own address and port");
    expect(t.sink.received).toHaveLength(0);
    t.engine.setServerAddress("127.0.0.1", t.sink.port + 1);
    const other = await runOf(t, `${t.sink.url}/pay`, settled);
    expect(other.status).toBe("success");
  });

  it("connects to the address it checked, whatever a second lookup would answer (no DNS rebinding)", async () => {
    let calls = 0;
    const t = await setup({
      outbound: {
        lookup: async () => {
          calls++;
          // The first answer passes the policy; any later one would point at the metadata service.
          return [{ address: calls === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }];
        },
      },
    });
    const run = await runOf(t, `http://rebind.invalid:${t.sink.port}/pay`, settled);
    expect(run.status).toBe("success");
    expect(calls).toBe(1);
    expect(t.sink.received).toEqual([
      { method: "POST", path: "/pay", host: `rebind.invalid:${t.sink.port}` },
    ]);
  });
});

describe("a secret param in a URL's host", () => {
  const TOKEN = "TenantTok3nXyZ";

  async function secretRun(t: Awaited<ReturnType<typeof setup>>, url: string) {
    const flow = await t.engine.createFlow({
      name: "tenant",
      steps: [{ id: "call", type: "http", method: "GET", url, expect: { status: [200] } }],
    });
    const tpl = await t.engine.createTemplate({
      name: "tenant",
      flow_id: flow.id,
      params_schema: [{ key: "token", type: "secret", required: true }],
    });
    const run = await t.engine.createRun({ template_id: tpl.id, params: { token: TOKEN } });
    return waitFor(
      () => t.engine.getRun(run.id),
      (r) => settled(r.status),
    );
  }

  it.each([
    "https://${secrets.token}.example.test/x",
    "https://${secrets.token}/x",
    "http://api.example.test:8080@${secrets.token}.example.test/x",
  ])("fails %s with SECRET_IN_URL_HOST before any lookup, the secret in no casing anywhere", async (url) => {
    const lookups: string[] = [];
    const t = await setup({
      outbound: {
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: "127.0.0.1", family: 4 }];
        },
      },
    });
    const run = await secretRun(t, url);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("call: SECRET_IN_URL_HOST:");
    expect(run.error).toContain("${secrets.token}");
    expect(lookups).toEqual([]);
    const events = await t.engine.listEvents(run.id);
    expect(events.items).toContainEqual(
      expect.objectContaining({
        type: "step_finished",
        data: expect.objectContaining({ code: "SECRET_IN_URL_HOST", reference: "secrets.token" }),
      }),
    );
    const stored = JSON.stringify({ run, events }).toLowerCase();
    expect(stored).not.toContain(TOKEN.toLowerCase());
  });

  it("still sends a secret in the path or query, after looking the host up", async () => {
    const lookups: string[] = [];
    const t = await setup({
      outbound: {
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: "127.0.0.1", family: 4 }];
        },
      },
    });
    const run = await secretRun(
      t,
      `http://tenant.invalid:${t.sink.port}/\${secrets.token}?key=\${secrets.token}`,
    );
    expect(run.status).toBe("success");
    expect(lookups).toEqual(["tenant.invalid"]);
    expect(t.sink.received[0]?.path).toBe(`/${TOKEN}?key=${TOKEN}`);
  });
});
