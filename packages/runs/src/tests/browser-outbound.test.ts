import { describe, expect, it } from "vitest";
import type { Run } from "../domain/run.js";
import type { RunsEngine } from "../platform.js";
import { LEAK_KINDS } from "../testing/test-site-pages.js";
import { target } from "./browser-flows.js";
import { useBrowserSuite } from "./browser-suite.js";
import { waitFor } from "./harness.js";
import { startSink } from "./sink.js";

const suite = useBrowserSuite("vetted-outbound-");

const settled = (r: Run) => r.status !== "queued" && r.status !== "running";

async function runSteps(engine: RunsEngine, steps: readonly unknown[]): Promise<Run> {
  const flow = await engine.createFlow({ name: "outbound", steps: steps as never });
  const run = await engine.createRun({ flow_id: flow.id });
  return waitFor(() => engine.getRun(run.id), settled, 20_000);
}

/** What reached the provider at `path` (the suite's site is shared by the tests of this file). */
const providerSaw = (path: string) =>
  suite.site.requests().filter((r) => r.endsWith(`${suite.site.payHost}${path}`));

const via = (to: string) => `${suite.site.url}/go?to=${encodeURIComponent(to)}`;

describe("the outbound guard of browser contexts: every hop of a redirect", { timeout: 90_000 }, () => {
  it("pauses a navigate a loopback page redirects to the protected provider, before it is reached; approved, it goes on", async () => {
    const { engine } = await suite.engineWith();
    const before = providerSaw("/pay").length;
    const paused = await runSteps(engine, [
      { id: "open", type: "navigate", url: via(`${suite.site.payUrl}/pay?order=ord_r`) },
      { id: "see", type: "wait_for", text: "Pay now" },
    ]);
    expect(paused.status, paused.error ?? "").toBe("waiting_user");
    expect(paused.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: suite.site.payHost,
      at_step_id: "open",
    });
    expect(providerSaw("/pay")).toHaveLength(before);

    await engine.resumeRun(paused.id, { kind: "approval", approved: true });
    const done = await waitFor(
      () => engine.getRun(paused.id),
      (r) => r.status === "success",
      20_000,
    );
    expect(done.status).toBe("success");
    expect(providerSaw("/pay")).toHaveLength(before + 1);
  });

  it("refuses a redirect to the server's own address and port (OUTBOUND_DENIED): the API is never reached", async () => {
    const api = await startSink((_req, res) => void res.end('{"flows":["secret-flow"]}'));
    suite.onClose(api.close);
    const { engine } = await suite.engineWith();
    engine.setServerAddress("127.0.0.1", api.port);
    const run = await runSteps(engine, [
      { id: "open", type: "navigate", url: via(`${api.url}/api/flows`) },
      { id: "grab", type: "extract", target: target({ kind: "css", value: "body" }), var: "api" },
    ]);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("OUTBOUND_DENIED");
    expect(run.error).toContain("the server's own address and port");
    expect(api.received).toEqual([]);
    expect(JSON.stringify(run.vars)).not.toContain("secret-flow");
  });

  it("refuses a redirect to the cloud metadata address by the policy, before any connection", async () => {
    const { engine } = await suite.engineWith();
    const run = await runSteps(engine, [
      { id: "open", type: "navigate", url: via("http://169.254.169.254/latest/meta-data/") },
    ]);
    expect(run.status).toBe("failed");
    expect(run.error).toContain(
      "open: OUTBOUND_DENIED: requests to 169.254.169.254 are denied (169.254.0.0/16)",
    );
  });
});

describe("the outbound guard of browser contexts: requests a page sends by itself", {
  timeout: 90_000,
}, () => {
  it.each(LEAK_KINDS)(
    "pauses the run when the page sends a %s to the protected provider; it never leaves",
    async (kind) => {
      const { engine } = await suite.engineWith();
      const path = kind === "websocket" ? "/socket" : kind === "image" ? "/collect.png" : "/collect";
      const before = providerSaw(path).length;
      const run = await runSteps(engine, [
        { id: "open", type: "navigate", url: `${suite.site.url}/leaky?kind=${kind}` },
        // A request the page sends later than the navigate waits for is told by the next browser step;
        // the browser may send a beacon or a socket late on a loaded machine: a second look, a moment on,
        // is there to tell it (the page never changes, so without a leak the run would just succeed).
        { id: "look", type: "wait_for", text: "Leaky" },
        { id: "moment", type: "wait", seconds: 1 },
        { id: "look-again", type: "wait_for", text: "Leaky" },
      ]);
      expect(run.status, run.error ?? "").toBe("waiting_user");
      expect(run.wait_context).toMatchObject({
        reason_code: "provider_protected_payment_step",
        provider_domain: suite.site.payHost,
      });
      expect(providerSaw(path)).toHaveLength(before);
    },
  );
});

describe("the outbound guard: spellings of an address", { timeout: 90_000 }, () => {
  it.each(["0", "0.0.0.0"])(
    "treats http://%s:… as the loopback address it reaches (protected 127.0.0.1)",
    async (host) => {
      const { engine } = await suite.engineWith({
        protectedDomains: ["127.0.0.1"],
        outbound: { allow: ["127.0.0.0/8"] },
      });
      const port = new URL(suite.site.url).port;
      const run = await runSteps(engine, [
        { id: "open", type: "navigate", url: `http://${host}:${port}/login` },
      ]);
      expect(run.status, run.error ?? "").toBe("waiting_user");
      expect(run.wait_context).toMatchObject({ provider_domain: "127.0.0.1" });
    },
  );
});
