import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { findChromium } from "../core/browser/find-chromium.js";
import { createBrowserHost } from "../core/browser/host.js";
import type { Run } from "../domain/run.js";
import type { RunsEngine } from "../platform.js";
import { browserStates } from "../store/schema.js";
import { checkoutSteps, loginSteps, target } from "./browser-flows.js";
import { useBrowserSuite } from "./browser-suite.js";
import { codeOf, waitFor } from "./harness.js";

const suite = useBrowserSuite("vetted-evidence-");

const until = (engine: RunsEngine, id: string, done: (r: Run) => boolean) =>
  waitFor(() => engine.getRun(id), done, 20_000);

const settled = (r: Run) => r.status !== "queued" && r.status !== "running";

async function loginTemplate(engine: RunsEngine, steps: readonly unknown[]) {
  const flow = await engine.createFlow({ name: "shop", steps: steps as never });
  return engine.createTemplate({
    name: "shop",
    flow_id: flow.id,
    params_schema: [
      { key: "email", type: "string", required: true },
      { key: "password", type: "secret", required: true },
    ],
  });
}

describe("browser steps in flows (real Chromium)", { timeout: 90_000 }, () => {
  it("replays a login flow to the logged-in page, with evidence for every step", async () => {
    const { engine, dataDir } = await suite.engineWith();
    const steps = [
      ...loginSteps(suite.site),
      { id: "who", type: "assert", target: target({ kind: "css", value: "#who" }), text: suite.site.email },
    ];
    const tpl = await loginTemplate(engine, steps);
    const run = await engine.createRun({
      template_id: tpl.id,
      params: { email: suite.site.email, password: suite.site.password },
    });
    const done = await until(engine, run.id, settled);
    expect(done.status, done.error ?? "").toBe("success");

    const evidence = (await engine.listEvidence(run.id)).items;
    expect(evidence.map((e) => e.step_id)).toEqual(["open", "email", "password", "sign_in", "who"]);
    const signIn = evidence.find((e) => e.step_id === "sign_in");
    expect(signIn?.detail).toMatchObject({ selector_index: 0, url_after: `${suite.site.url}/account` });
    expect(signIn?.screenshots.map((s) => s.name)).toEqual(["before", "after"]);
    for (const shot of signIn?.screenshots ?? []) expect(existsSync(join(dataDir, shot.path))).toBe(true);
    // The step typing the password takes no screenshot, and no evidence holds the password.
    const password = evidence.find((e) => e.step_id === "password");
    expect(password?.screenshots).toEqual([]);
    expect(password?.detail.screenshots_skipped).toMatch(/secret/);
    expect(JSON.stringify(evidence)).not.toContain(suite.site.password);
    const perStep = await engine.listEvidence(run.id, { step_id: "sign_in" });
    expect(perStep.items).toHaveLength(1);
    const shot = await engine.readScreenshot(run.id, signIn?.id ?? "", "after");
    expect(shot.bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it("falls back to the second selector when the first breaks, and says so", async () => {
    const { engine } = await suite.engineWith();
    const flow = await engine.createFlow({
      name: "fallback",
      steps: [
        { id: "open", type: "navigate", url: `${suite.site.url}/login` },
        {
          id: "email",
          type: "type",
          target: target({ kind: "css", value: "#renamed-email" }, { kind: "label", value: "Email" }),
          value: "x@example.test",
        },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    expect((await until(engine, run.id, settled)).status).toBe("success");
    const [, typed] = (await engine.listEvidence(run.id)).items;
    expect(typed?.detail).toMatchObject({
      selector_index: 1,
      fallback: true,
      selector_trail: [
        { index: 0, kind: "css", value: "#renamed-email", result: "no match" },
        { index: 1, kind: "label", value: "Email", result: "matched" },
      ],
    });
    const events = (await engine.listEvents(run.id)).items;
    const finished = events.find((e) => e.type === "step_finished" && e.data.step_id === "email");
    expect(finished?.data).toMatchObject({ selector_index: 1, fallback: true });
  });

  it("checks out: OTP gate, the code typed into the page, protected payment paused before acting, approved, paid", async () => {
    const { engine, db } = await suite.engineWith();
    const savedStates = async () =>
      (await db.select().from(browserStates).where(eq(browserStates.runId, run.id))).length;
    const tpl = await loginTemplate(engine, [...loginSteps(suite.site), ...checkoutSteps()]);
    const run = await engine.createRun({
      template_id: tpl.id,
      params: { email: suite.site.email, password: suite.site.password },
    });
    await until(engine, run.id, (r) => r.status === "waiting_otp");
    await engine.resumeRun(run.id, { kind: "otp", otp_code: suite.site.otpCode });

    const atLink = await until(
      engine,
      run.id,
      (r) => r.status === "waiting_user" || (!settled(r) === false && r.status !== "waiting_otp"),
    );
    expect(atLink.status, atLink.error ?? "").toBe("waiting_user");
    expect(atLink.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: suite.site.payHost,
      gate_required_by_policy: true,
      at_step_id: "to_pay",
    });
    expect(atLink.vars).toMatchObject({ order_id: "ord_1" });
    expect(suite.site.requests().some((r) => r.includes(suite.site.payHost))).toBe(false);
    expect(await savedStates()).toBe(1); // paused at a gate: its page saved for the resume

    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    const atPay = await until(
      engine,
      run.id,
      (r) => r.status === "waiting_user" && r.wait_context?.at_step_id === "pay",
    );
    expect(atPay.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: suite.site.payHost,
    });
    expect(suite.site.payments()).toBe(0);

    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    const done = await until(engine, run.id, settled);
    expect(done.status, done.error ?? "").toBe("success");
    expect(suite.site.payments()).toBe(1);
    expect(await savedStates()).toBe(0); // a browser run that ended forgets its page
  });

  it.each([
    ["whose URL gives it away (/3ds)", "1"],
    ["told only by the page's text (/verify)", "2"],
  ])(
    "pauses with three_ds_challenge_detected when paying brings up a 3-D Secure challenge %s",
    async (_, sca) => {
      const { engine } = await suite.engineWith();
      const flow = await engine.createFlow({
        name: "3ds",
        steps: [
          { id: "open_pay", type: "navigate", url: `${suite.site.payUrl}/pay?sca=${sca}` },
          { id: "pay", type: "click", target: target({ kind: "role", value: "button", name: "Pay now" }) },
          { id: "after", type: "wait_for", url: "/paid", timeout_ms: 500 },
        ],
      });
      const run = await engine.createRun({ flow_id: flow.id });
      await until(engine, run.id, (r) => r.wait_context?.at_step_id === "open_pay");
      await engine.resumeRun(run.id, { kind: "approval", approved: true });
      await until(engine, run.id, (r) => r.wait_context?.at_step_id === "pay");
      await engine.resumeRun(run.id, { kind: "approval", approved: true });
      const paused = await until(
        engine,
        run.id,
        (r) =>
          r.wait_context?.reason_code === "three_ds_challenge_detected" ||
          (settled(r) && r.status !== "waiting_user"),
      );
      expect(paused.status, paused.error ?? "").toBe("waiting_user");
      expect(paused.wait_context).toMatchObject({
        reason_code: "three_ds_challenge_detected",
        at_step_id: "pay",
        resume_from_step_id: "after",
        gate_required_by_policy: true,
      });
    },
  );

  it("stops a click whose navigation the outbound policy denies, before the request leaves", async () => {
    const { engine } = await suite.engineWith({
      protectedDomains: [],
      outbound: { allow: [suite.site.payHost] },
    });
    const flow = await engine.createFlow({
      name: "leave",
      steps: [
        { id: "open_pay", type: "navigate", url: `${suite.site.payUrl}/pay` },
        {
          id: "back",
          type: "click",
          target: target({ kind: "role", value: "link", name: "Back to the shop" }),
        },
      ],
    });
    const seen = suite.site.requests().filter((r) => r.includes("127.0.0.1/")).length;
    const run = await engine.createRun({ flow_id: flow.id });
    const done = await until(engine, run.id, settled);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/back: OUTBOUND_DENIED: requests to 127\.0\.0\.1 are denied/);
    expect(suite.site.requests().filter((r) => r.includes("127.0.0.1/")).length).toBe(seen);
  });

  it("pauses before typing into a page of a protected provider, and types once approved", async () => {
    const { engine } = await suite.engineWith();
    const flow = await engine.createFlow({
      name: "card",
      steps: [
        { id: "open_pay", type: "navigate", url: `${suite.site.payUrl}/pay` },
        { id: "card", type: "type", target: target({ kind: "label", value: "Card number" }), value: "4242" },
        { id: "typed", type: "assert", target: target({ kind: "css", value: "#card" }), visible: true },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    await until(engine, run.id, (r) => r.wait_context?.at_step_id === "open_pay");
    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    const paused = await until(
      engine,
      run.id,
      (r) => r.wait_context?.at_step_id === "card" || (settled(r) && r.status !== "waiting_user"),
    );
    expect(paused.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: suite.site.payHost,
    });
    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    expect((await until(engine, run.id, settled)).status).toBe("success");
  });

  it("refuses a navigation the outbound policy denies with OUTBOUND_DENIED", async () => {
    const { engine } = await suite.engineWith({ outbound: { allow: [suite.site.payHost] } });
    const flow = await engine.createFlow({
      name: "denied",
      steps: [{ id: "open", type: "navigate", url: `${suite.site.url}/login` }],
    });
    const seen = suite.site.requests().length;
    const run = await engine.createRun({ flow_id: flow.id });
    const done = await until(engine, run.id, settled);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/OUTBOUND_DENIED/);
    expect(suite.site.requests().length).toBe(seen);
  });

  it("starts a run bound to a session from the session's storage state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vetted-session-"));
    const sessionStates = {
      async load(id: string) {
        const file = join(dir, `${id}.json`);
        return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
      },
    };
    // The engine sets the outbound policy of the suite's browser (a previous test's engine allowed less).
    const { engine } = await suite.engineWith({ sessionStates });
    const lease = await suite.host.acquire("setup");
    await lease.page.goto(`${suite.site.url}/login`);
    await lease.page.getByLabel("Email").fill(suite.site.email);
    await lease.page.getByLabel("Password").fill(suite.site.password);
    await lease.page.getByRole("button", { name: "Sign in" }).click();
    await lease.page.waitForURL("**/account");
    writeFileSync(join(dir, "ss_1.json"), JSON.stringify(await lease.context.storageState()));
    await lease.release();
    const flow = await engine.createFlow({
      name: "account",
      steps: [
        { id: "open", type: "navigate", url: `${suite.site.url}/account` },
        { id: "who", type: "assert", url: "/account", text: `Signed in as ${suite.site.email}` },
      ],
    });
    expect(await codeOf(engine.createRun({ flow_id: flow.id, session_id: "ss_missing" }))).toBe(
      "SESSION_NOT_FOUND",
    );
    const run = await engine.createRun({ flow_id: flow.id, session_id: "ss_1" });
    expect(run.session_id).toBe("ss_1");
    const done = await until(engine, run.id, settled);
    expect(done.status, done.error ?? "").toBe("success");
  });

  it("fails the step in flight with BROWSER_CRASHED (retryable) when the browser crashes, and never hangs", async () => {
    const own = createBrowserHost({ executablePath: findChromium(process.env) });
    suite.onClose(() => own.close());
    const { engine } = await suite.engineWith({ browser: own });
    const flow = await engine.createFlow({
      name: "crash",
      steps: [
        { id: "open", type: "navigate", url: `${suite.site.url}/login` },
        { id: "never", type: "wait_for", text: "This text never shows", timeout_ms: 60_000 },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    await until(engine, run.id, (r) => r.current_step_id === "never");
    await new Promise((r) => setTimeout(r, 300));
    const probe = await own.acquire("probe");
    const cdp = await probe.context.browser()?.newBrowserCDPSession();
    await cdp?.send("Browser.crash").catch(() => undefined);
    const done = await until(engine, run.id, settled);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/BROWSER_CRASHED/);
    const events = (await engine.listEvents(run.id)).items;
    const finished = events.find((e) => e.type === "step_finished" && e.data.step_id === "never");
    expect(finished?.data).toMatchObject({ code: "BROWSER_CRASHED", retryable: true });
    expect(own.status().restarts).toBe(1);
  });

  it("refuses a run with browser steps when there is no browser (BROWSER_UNAVAILABLE)", async () => {
    const none = createBrowserHost({
      executablePath: findChromium({ VETTED_CHROMIUM_PATH: "/nonexistent" }),
    });
    const { engine } = await suite.engineWith({ browser: none });
    const flow = await engine.createFlow({
      name: "b",
      steps: [{ id: "open", type: "navigate", url: `${suite.site.url}/login` }],
    });
    const err = await engine.createRun({ flow_id: flow.id }).catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe("BROWSER_UNAVAILABLE");
    expect((err as Error).message).toContain("apt-get install -y chromium");
    const plain = await engine.createFlow({ name: "p", steps: [{ id: "s", type: "set", vars: { a: 1 } }] });
    expect((await until(engine, (await engine.createRun({ flow_id: plain.id })).id, settled)).status).toBe(
      "success",
    );
  });
});
