import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunsError } from "../kernel/errors.js";
import { type Lanes, openLanes } from "./lanes-harness.js";

let t: Lanes;

beforeAll(async () => {
  t = await openLanes();
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function signInAsAPerson(sessionId: string): Promise<void> {
  const { page } = await t.sessions.livePage(sessionId);
  await page.getByLabel("Email").click();
  await page.getByLabel("Email").pressSequentially(t.site.email);
  await page.getByLabel("Password").click();
  await page.getByLabel("Password").pressSequentially(t.site.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${t.site.url}/account`);
}

describe("recording sessions", { timeout: 60_000 }, () => {
  it("records a person signing in as a flow draft, and finishing saves state, HAR, screenshot and events", async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "manual" });
    expect(session).toMatchObject({ status: "active", current_url: `${t.site.url}/login` });
    expect(session.id).toMatch(/^ss_/);
    await signInAsAPerson(session.id);

    const live = await t.sessions.getFlowDraft(session.id);
    expect(live.final).toBe(false);
    expect(live.steps.map((s) => s.type)).toEqual(["navigate", "type", "type", "click"]);

    const done = await t.sessions.finishSession(session.id);
    expect(done).toMatchObject({ status: "finished", current_url: `${t.site.url}/account` });
    expect(done.artifacts_index.map((a) => a.kind).sort()).toEqual(["events", "har", "screenshot"]);
    expect(await t.sessions.finishSession(session.id)).toEqual(done);

    const draft = await t.sessions.getFlowDraft(session.id);
    expect(draft).toMatchObject({ final: true, secrets: ["password"], start_url: `${t.site.url}/login` });
    expect(draft.steps).toMatchObject([
      { type: "navigate", url: `${t.site.url}/login` },
      {
        type: "type",
        value: t.site.email,
        target: { selectors: expect.arrayContaining([{ kind: "testid", value: "email", score: 0.95 }]) },
      },
      { type: "type", value: "${secrets.password}" },
      {
        type: "click",
        target: {
          selectors: expect.arrayContaining([{ kind: "role", value: "button", name: "Sign in", score: 0.9 }]),
        },
      },
    ]);

    const dir = join(t.dataDir, "sessions", session.id);
    expect(statSync(join(dir, "storage-state.json")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, "storage-state.json"), "utf8")).toContain('"sid"');
    const har = readFileSync(join(dir, "session.har"), "utf8");
    expect(har).toContain("/account");
    expect(har).not.toContain(new URLSearchParams({ p: t.site.password }).toString().slice(2));
    expect(har).not.toContain(encodeURIComponent(t.site.password));
    expect(har).not.toContain(t.site.password);
    expect(readFileSync(join(dir, "events.json"), "utf8")).not.toContain(t.site.password);
  });

  it("starts a session with the storage state of a finished one, already signed in", async () => {
    const first = await t.sessions.startSession({ start_url: `${t.site.url}/login` });
    await signInAsAPerson(first.id);
    await t.sessions.finishSession(first.id);
    const second = await t.sessions.startSession({
      start_url: `${t.site.url}/account`,
      storage_state_from: first.id,
    });
    expect(second.current_url).toBe(`${t.site.url}/account`);
    const { page } = await t.sessions.livePage(second.id);
    expect(await page.locator("#who").textContent()).toContain(t.site.email);
    await t.sessions.finishSession(second.id);
  });

  it("refuses a start_url that is not http(s), and a finished session's live page", async () => {
    for (const start_url of ["file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi", "not a url"]) {
      const err = (await t.sessions.startSession({ start_url }).catch((e: unknown) => e)) as RunsError;
      expect(err.code).toBe("START_URL_INVALID");
    }
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/login` });
    await t.sessions.finishSession(session.id);
    const err = (await t.sessions.livePage(session.id).catch((e: unknown) => e)) as RunsError;
    expect(err.code).toBe("SESSION_NOT_ACTIVE");
    const missing = (await t.sessions.getSession("ss_nope").catch((e: unknown) => e)) as RunsError;
    expect(missing.code).toBe("SESSION_NOT_FOUND");
  });

  it("lists sessions newest first with opaque cursors", async () => {
    const page1 = await t.sessions.listSessions({ limit: 2 });
    expect(page1.items).toHaveLength(2);
    expect(page1.next_cursor).not.toBeNull();
    const page2 = await t.sessions.listSessions({ limit: 50, cursor: page1.next_cursor ?? undefined });
    const ids = [...page1.items, ...page2.items].map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(4);
  });
});

describe("a flow recorded from a session", { timeout: 90_000 }, () => {
  it("replays through the engine to the signed-in page", async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/login` });
    await signInAsAPerson(session.id);
    await t.sessions.finishSession(session.id);
    const flow = await t.sessions.promoteDraft({ session_id: session.id, name: "sign in" });
    expect(flow.steps.map((s) => s.type)).toEqual(["navigate", "type", "type", "click"]);
    const checked = await t.engine.updateFlow(flow.id, {
      steps: [
        ...flow.steps,
        { id: "signed_in", type: "assert", url: "/account", text: `Signed in as ${t.site.email}` },
      ],
    });
    const template = await t.engine.createTemplate({
      name: "sign in",
      flow_id: checked.id,
      params_schema: [{ key: "password", type: "secret", required: true }],
    });
    const run = await t.engine.createRun({ template_id: template.id, params: { password: t.site.password } });
    const done = await waitForEnd(run.id);
    expect(done).toMatchObject({ status: "success" });
    const evidence = await t.engine.listEvidence(run.id);
    expect(evidence.items.map((e) => e.step_id)).toEqual([
      "navigate_1",
      "type_2",
      "type_3",
      "click_4",
      "signed_in",
    ]);
  });

  it("binds a run to a session's saved storage state (session_id on the run)", async () => {
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/login` });
    await signInAsAPerson(session.id);
    await t.sessions.finishSession(session.id);
    const flow = await t.engine.createFlow({
      name: "account",
      steps: [
        { id: "open", type: "navigate", url: `${t.site.url}/account` },
        { id: "who", type: "assert", url: "/account", text: `Signed in as ${t.site.email}` },
      ],
    });
    const bound = await t.engine.createRun({ flow_id: flow.id, session_id: session.id });
    expect(await waitForEnd(bound.id)).toMatchObject({ status: "success" });
    const unbound = await t.engine.createRun({ flow_id: flow.id });
    expect(await waitForEnd(unbound.id)).toMatchObject({ status: "failed" });
    const missing = (await t.engine
      .createRun({ flow_id: flow.id, session_id: "ss_nope" })
      .catch((e: unknown) => e)) as RunsError;
    expect(missing.code).toBe("SESSION_NOT_FOUND");
  });
});

async function waitForEnd(runId: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = await t.engine.getRun(runId);
    if (["success", "failed", "cancelled", "waiting_user", "waiting_otp"].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} is still ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
