import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CuExecution } from "../domain/computer-use.js";
import type { RunsError } from "../kernel/errors.js";
import { createComputerUseEngine } from "../lanes/computer-use/cu-engine.js";
import { TEST_SECRETS_KEY } from "./harness.js";
import { type Lanes, openLanes } from "./lanes-harness.js";

let t: Lanes;

beforeAll(async () => {
  // A card form that tokenises before it posts, and a provider that takes its time to answer: the
  // confirmed click's payment leaves after the click returns, and is still the one confirmed.
  t = await openLanes({ site: { cardSubmitDelayMs: 250, payDelayMs: 300 } });
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  return (
    (
      (await p.then(
        () => undefined,
        (e: unknown) => e,
      )) as RunsError | undefined
    )?.code ?? "none"
  );
}

/** A live recording session at the login form with the credentials typed in. */
async function loginFormFilled(): Promise<string> {
  const session = await t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "ai" });
  const { page } = await t.sessions.livePage(session.id);
  await page.getByLabel("Email").fill(t.site.email);
  await page.getByLabel("Password").fill(t.site.password);
  return session.id;
}

describe("computer use", { timeout: 90_000 }, () => {
  it('runs "click Sign in" (medium) after a preview, with before/after evidence', async () => {
    const sessionId = await loginFormFilled();
    const cus = await t.cu.createSession({ instruction: "click Sign in", session_id: sessionId });
    expect(cus.id).toMatch(/^cus_/);
    const action = await t.cu.preview(cus.id);
    expect(action).toMatchObject({
      name: "click",
      args: { role: "button", name: "Sign in" },
      risk_level: "medium",
      require_confirmation: false,
      status: "proposed",
    });
    expect(action.action_digest).toMatch(/^[0-9a-f]{64}$/);
    const result = await t.cu.execute(cus.id, action.action_id);
    expect(result).toMatchObject({
      ok: true,
      url_before: `${t.site.url}/login`,
      url_after: `${t.site.url}/account`,
      action: { status: "executed" },
    });
    expect(result.accessibility_summary).toContain("Your account");
    expect(result.evidence.map((e) => e.kind)).toEqual(["before_screenshot", "after_screenshot"]);
    const evidence = await t.cu.listEvidence(cus.id);
    expect(evidence.map((e) => e.kind)).toEqual([
      "preview_screenshot",
      "before_screenshot",
      "after_screenshot",
    ]);
    const file = await t.cu.evidenceFile(cus.id, evidence[2]?.id ?? "");
    expect(file.contentType).toBe("image/png");
    expect(file.data.subarray(1, 4).toString()).toBe("PNG");
    await t.sessions.finishSession(sessionId);
  });

  it('answers "click Pay now" (critical) with 409 until confirmed, then pays once for two concurrent executes', async () => {
    // A session may not open the provider's page itself; the shop embeds its card form.
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/frames` });
    const cus = await t.cu.createSession({ instruction: "click Pay now", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    expect(action).toMatchObject({
      risk_level: "critical",
      require_confirmation: true,
      provider_domain: t.site.payHost,
    });
    expect(await codeOf(t.cu.execute(cus.id, action.action_id))).toBe("CONFIRMATION_REQUIRED");
    expect(t.site.payments()).toBe(0);
    const confirmed = await t.cu.confirm(cus.id, action.action_id, {
      approved: true,
      confirmation_reason: "ordered",
    });
    expect(confirmed).toMatchObject({
      status: "approved",
      confirmation: { approved: true, reason: "ordered" },
    });
    expect(await codeOf(t.cu.confirm(cus.id, action.action_id, { approved: false }))).toBe(
      "ACTION_ALREADY_DECIDED",
    );

    const [a, b] = await Promise.all([
      t.cu.execute(cus.id, action.action_id),
      t.cu.execute(cus.id, action.action_id),
    ]);
    expect(a).toEqual(b);
    // The provider's card form pays inside its frame: the confirmed click's POST was let through.
    expect(a).toMatchObject({ ok: true, url_after: `${t.site.url}/frames` });
    expect(t.site.payments()).toBe(1);
    const evidence = (await t.cu.listEvidence(cus.id)).filter((e) => e.action_id === action.action_id);
    expect(evidence.map((e) => e.kind)).toEqual([
      "preview_screenshot",
      "before_screenshot",
      "after_screenshot",
    ]);
    expect(await t.cu.execute(cus.id, action.action_id)).toEqual(a);
    await t.sessions.finishSession(session.id);
  });

  it("never executes a rejected action, and names the grammar for an instruction it cannot read", async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/frames` });
    const cus = await t.cu.createSession({ instruction: "click Pay now", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    await t.cu.confirm(cus.id, action.action_id, { approved: false });
    expect(await codeOf(t.cu.execute(cus.id, action.action_id))).toBe("ACTION_REJECTED");

    const odd = await t.cu.createSession({ instruction: "make it cheaper", session_id: session.id });
    const err = (await t.cu.preview(odd.id).catch((e: unknown) => e)) as RunsError;
    expect(err.code).toBe("INSTRUCTION_NOT_UNDERSTOOD");
    expect(err.message).toContain("click <name>");
    const absent = await t.cu.createSession({ instruction: "click Sign in", session_id: session.id });
    expect(await codeOf(t.cu.preview(absent.id))).toBe("INSTRUCTION_NOT_UNDERSTOOD");
    expect(
      await codeOf(
        t.cu.preview(absent.id, { screenshot_base64: "aGVsbG8=", screenshot_mime_type: "text/plain" }),
      ),
    ).toBe("SCREENSHOT_INVALID");
    await t.sessions.finishSession(session.id);
  });

  it("claims an action once when another process executed it between the read and the claim", async () => {
    const sessionId = await loginFormFilled();
    // Two engines over one database, as two processes: each serialises only its own executions.
    const engine = (beforeClaim?: (actionId: string) => Promise<void>) =>
      createComputerUseEngine({
        db: t.db,
        browser: t.browser,
        sessions: t.sessions,
        dataDir: t.dataDir,
        protectedDomains: [t.site.payHost],
        secretsKey: TEST_SECRETS_KEY,
        ...(beforeClaim === undefined ? {} : { raceHooks: { beforeClaim } }),
      });
    const other = engine();
    let cusId = "";
    let first: CuExecution | undefined;
    // At the racy point (the action read as proposed, the page judged, not yet claimed), the other process
    // executes it to the end: this claim, from `proposed`, must find it `executed` and refuse.
    const racing = engine(async (actionId) => {
      first ??= await other.execute(cusId, actionId);
    });
    const cus = await racing.createSession({ instruction: "click Sign in", session_id: sessionId });
    cusId = cus.id;
    const action = await racing.preview(cus.id);
    expect(action).toMatchObject({ require_confirmation: false, status: "proposed" });
    const second = await racing.execute(cus.id, action.action_id);
    expect(first).toMatchObject({ ok: true, action: { status: "executed" } });
    expect(second).toEqual(first);
    expect((await racing.listEvidence(cus.id)).map((e) => e.kind)).toEqual([
      "preview_screenshot",
      "before_screenshot",
      "after_screenshot",
    ]);
    await Promise.all([racing.close(), other.close()]);
    await t.sessions.finishSession(sessionId);
  });

  it("serialises the executions of one session", async () => {
    const cus = await t.cu.createSession({ instruction: "scroll down" });
    const first = await t.cu.preview(cus.id);
    const second = await t.cu.preview(cus.id);
    expect(first.risk_level).toBe("low");
    const [a, b] = await Promise.all([
      t.cu.execute(cus.id, first.action_id),
      t.cu.execute(cus.id, second.action_id),
    ]);
    const spans = [a, b].map((r) => [Date.parse(r.started_at), Date.parse(r.finished_at)] as const);
    spans.sort((x, y) => x[0] - y[0]);
    const [early, late] = spans;
    expect(late?.[0]).toBeGreaterThanOrEqual(early?.[1] ?? Number.POSITIVE_INFINITY);
  });

  it("keeps sessions, actions and evidence across an engine restart", async () => {
    const cus = await t.cu.createSession({
      instruction: `open ${t.site.url}/login`,
      metadata: { ticket: "T-1" },
    });
    const action = await t.cu.preview(cus.id);
    expect(action).toMatchObject({ name: "open", risk_level: "medium" });
    const result = await t.cu.execute(cus.id, action.action_id);
    expect(result).toMatchObject({ ok: true, url_after: `${t.site.url}/login` });

    const restarted = t.reopen();
    expect(await restarted.cu.getSession(cus.id)).toMatchObject({
      metadata: { ticket: "T-1" },
      action_count: 1,
    });
    expect(await restarted.cu.execute(cus.id, action.action_id)).toEqual(result);
    expect(await restarted.cu.listEvidence(cus.id)).toEqual(await t.cu.listEvidence(cus.id));
    await restarted.cu.close();
  });
});
