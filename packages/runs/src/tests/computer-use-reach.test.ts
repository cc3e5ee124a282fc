import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunsError } from "../kernel/errors.js";
import { createComputerUseEngine } from "../lanes/computer-use/cu-engine.js";
import { type Lanes, openLanes } from "./lanes-harness.js";

/*
 * Computer use judged by what an action reaches, not by what its control is called: the shop's
 * "Continue", "Next" and "Details" all lead to the payment provider.
 */

let t: Lanes;

beforeAll(async () => {
  t = await openLanes();
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function errorOf(p: Promise<unknown>): Promise<RunsError | undefined> {
  return (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as RunsError | undefined;
}

describe("computer use judged by what an action reaches", { timeout: 90_000 }, () => {
  it('rates "click Continue" on a form posting to the provider critical, and refuses it unconfirmed', async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/steps` });
    const cus = await t.cu.createSession({ instruction: "click Continue", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    expect(action).toMatchObject({
      risk_level: "critical",
      require_confirmation: true,
      provider_domain: t.site.payHost,
    });
    expect((await errorOf(t.cu.execute(cus.id, action.action_id)))?.code).toBe("CONFIRMATION_REQUIRED");
    expect(t.site.payments()).toBe(0);
    await t.sessions.finishSession(session.id);
  });

  it('rates "click Details", a shop link redirecting to the provider, critical', async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/steps` });
    const cus = await t.cu.createSession({ instruction: "click Details", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    expect(action).toMatchObject({ risk_level: "critical", provider_domain: t.site.payHost });
    expect((await errorOf(t.cu.execute(cus.id, action.action_id)))?.code).toBe("CONFIRMATION_REQUIRED");
    expect(t.site.requests().filter((r) => r.endsWith("/go"))).toEqual([]);
    await t.sessions.finishSession(session.id);
  });

  it('fails "click Next" (a script POST to the provider) saying it needs a confirmed action, and pays once confirmed', async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/steps` });
    const cus = await t.cu.createSession({ instruction: "click Next", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    // What a script sends cannot be known before it runs: the network guard stops it.
    expect(action).toMatchObject({ risk_level: "medium", require_confirmation: false });
    const result = await t.cu.execute(cus.id, action.action_id);
    expect(result).toMatchObject({ ok: false, action: { status: "failed" } });
    expect(result.error).toMatch(/^PROVIDER_PROTECTED: .*127\.0\.0\.2.*needs a confirmed action/);
    expect(t.site.payments()).toBe(0);

    const again = await t.cu.preview(cus.id);
    await t.cu.confirm(cus.id, again.action_id, { approved: true, confirmation_reason: "next step pays" });
    expect(await t.cu.execute(cus.id, again.action_id)).toMatchObject({ ok: true });
    expect(t.site.payments()).toBe(1);
    await t.sessions.finishSession(session.id);
  });

  it("answers PREVIEW_STALE, running nothing, when the page navigated itself since the preview", async () => {
    const to = encodeURIComponent(`${t.site.url}/wander?arrived=1`);
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/wander?to=${to}&after=4000` });
    const cus = await t.cu.createSession({ instruction: "click Continue", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    expect(action.risk_level).toBe("medium");
    const { page } = await t.sessions.livePage(session.id);
    await page.waitForURL(/arrived=1/, { timeout: 10_000 });
    // The new page has a "Continue" of the same name: without the check it would be clicked.
    const err = await errorOf(t.cu.execute(cus.id, action.action_id));
    expect(err?.code).toBe("PREVIEW_STALE");
    expect(err?.message).toContain("Preview the action again");
    expect(t.site.requests()).not.toContain("POST 127.0.0.1/continued");
    expect((await errorOf(t.cu.execute(cus.id, action.action_id)))?.code).toBe("PREVIEW_STALE");

    const fresh = await t.cu.preview(cus.id);
    expect(await t.cu.execute(cus.id, fresh.action_id)).toMatchObject({ ok: true });
    expect(t.site.requests()).toContain("POST 127.0.0.1/continued");
    await t.sessions.finishSession(session.id);
  });

  it("answers PREVIEW_STALE when the page went to the provider by itself", async () => {
    const to = encodeURIComponent(`${t.site.payUrl}/pay`);
    const start = `${t.site.url}/wander?to=${to}&after=4000`;
    const session = await t.sessions.startSession({ start_url: start });
    const cus = await t.cu.createSession({ instruction: "click Continue", session_id: session.id });
    const action = await t.cu.preview(cus.id);
    const paid = t.site.payments();
    const { page } = await t.sessions.livePage(session.id);
    // The network guard stops the load itself (the page shows Chromium's "blocked" page there).
    // (Chromium names it by the provider's URL or as chrome-error://, depending on when it is asked.)
    await expect.poll(() => page.url(), { timeout: 10_000 }).not.toBe(start);
    const continued = t.site.requests().filter((q) => q === "POST 127.0.0.1/continued").length;
    expect((await errorOf(t.cu.execute(cus.id, action.action_id)))?.code).toBe("PREVIEW_STALE");
    expect(t.site.requests().filter((q) => q === "POST 127.0.0.1/continued")).toHaveLength(continued);
    expect(t.site.payments()).toBe(paid);
    await t.sessions.finishSession(session.id);
  });

  it("judges the action again at execute: one previewed before its provider was protected needs a confirmation", async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/steps` });
    // An engine configured without the provider previews; the one protecting it executes.
    const lax = createComputerUseEngine({
      db: t.db,
      browser: t.browser,
      sessions: t.sessions,
      dataDir: t.dataDir,
      protectedDomains: [],
    });
    const cus = await lax.createSession({ instruction: "click Continue", session_id: session.id });
    const action = await lax.preview(cus.id);
    expect(action).toMatchObject({ risk_level: "medium", require_confirmation: false });
    const paid = t.site.payments();
    expect((await errorOf(t.cu.execute(cus.id, action.action_id)))?.code).toBe("CONFIRMATION_REQUIRED");
    expect(t.site.payments()).toBe(paid);
    await lax.close();
    await t.sessions.finishSession(session.id);
  });
});
