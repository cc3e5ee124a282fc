import { join } from "node:path";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { createTowerEngine } from "@vetted/runs/tower";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "./db.js";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

let site: TestSite;
let t: TestApp;
let sessionId = "";
const T = "/api/command-tower";

async function call(method: string, path: string, body?: unknown) {
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function finished(runId: string): Promise<string> {
  const deadline = Date.now() + 40_000;
  let status = "";
  while (Date.now() < deadline) {
    status = String((await call("GET", `/api/runs/${runId}`)).json.status);
    if (["success", "failed", "cancelled", "blocked"].includes(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

function runIdOf(replay: { json: Record<string, unknown> }): string {
  return String((replay.json.run as { id: string }).id);
}

beforeAll(async () => {
  site = await startTestSite();
  t = await createTestApp({}, { protectedDomains: [site.payHost] });
  const noneYet = await call("GET", `${T}/latest-flow`);
  expect(noneYet).toMatchObject({ status: 200, json: { session_id: null, step_count: 0, steps: [] } });
  const started = await call("POST", "/api/sessions/start", {
    start_url: `${site.url}/login`,
    mode: "manual",
  });
  sessionId = String(started.json.id);
  const { page } = await t.deps.sessions.livePage(sessionId);
  await page.getByLabel("Email").fill(site.email);
  await page.getByLabel("Password").fill(site.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${site.url}/account`);
  await page.getByRole("link", { name: "Go to checkout" }).click();
  await page.waitForURL(`${site.url}/otp`);
  expect((await call("POST", `/api/sessions/${sessionId}/finish`)).status).toBe(200);
}, 90_000);

afterAll(async () => {
  await t.close();
  await site.close();
});

describe("/api/command-tower", { timeout: 120_000 }, () => {
  it("shows the latest finished session's flow, and answers each session_id / step_id case", async () => {
    const flow = await call("GET", `${T}/latest-flow`);
    expect(flow.status).toBe(200);
    expect(flow.json).toMatchObject({
      session_id: sessionId,
      start_url: `${site.url}/login`,
      draft_version: 0,
    });
    const steps = flow.json.steps as Array<{ step_id: string; action: string; value_ref: string | null }>;
    expect(steps.map((s) => s.action)).toEqual(["navigate", "type", "type", "click", "click"]);
    expect(steps[2]?.value_ref).toBe("${secrets.password}");
    expect(flow.json.step_count).toBe(5);
    const overview = await call("GET", `${T}/overview`);
    expect(overview.status).toBe(200);
    expect(overview.json).toMatchObject({
      status: expect.stringMatching(/^(ok|degraded)$/),
      diagnostics: { storage: { backend: "file" } },
      alerts: { state: expect.stringMatching(/^(ok|degraded)$/) },
      latest_flow: { session_id: sessionId, step_count: 5 },
    });
    expect(overview.json.diagnostics).not.toHaveProperty("metrics");
    for (const path of ["latest-flow", "latest-flow-draft", "evidence-timeline"]) {
      for (const latest of ["none", "null"])
        expect((await call("GET", `${T}/${path}?session_id=${latest}`)).json.session_id).toBe(sessionId);
      expect((await call("GET", `${T}/${path}?session_id=${sessionId}`)).status).toBe(200);
      expect(await call("GET", `${T}/${path}?session_id=`)).toMatchObject({
        status: 400,
        json: { error: { code: "SESSION_ID_INVALID" } },
      });
      expect((await call("GET", `${T}/${path}?session_id=no%20such!`)).status).toBe(400);
      expect(await call("GET", `${T}/${path}?session_id=ss_unknown`)).toMatchObject({
        status: 404,
        json: { error: { code: "SESSION_NOT_FOUND" } },
      });
    }
    for (const path of ["replay-latest-from-step", "replay-latest-step"]) {
      expect((await call("POST", `${T}/${path}?session_id=`, { step_id: "click_4" })).status).toBe(400);
      expect((await call("POST", `${T}/${path}?session_id=bad!`, { step_id: "click_4" })).status).toBe(400);
      expect((await call("POST", `${T}/${path}?session_id=ss_unknown`, { step_id: "click_4" })).status).toBe(
        404,
      );
      expect(await call("POST", `${T}/${path}`, { step_id: "nope" })).toMatchObject({
        status: 404,
        json: { error: { code: "STEP_NOT_FOUND" } },
      });
    }
    expect((await call("POST", `${T}/replay-latest?session_id=`, {})).status).toBe(400);
    expect((await call("POST", `${T}/replay-latest?session_id=ss_unknown`, {})).status).toBe(404);
    expect((await call("GET", `${T}/evidence`)).status).toBe(400);
    expect(await call("GET", `${T}/evidence?step_id=nope`)).toMatchObject({
      status: 404,
      json: { error: { code: "STEP_NOT_FOUND" } },
    });
    expect(await call("GET", `${T}/evidence?step_id=click_4`)).toMatchObject({
      status: 200,
      json: { step_id: "click_4", evidence: null },
    });
  });

  it("edits the draft with versions: a reorder, a stale expected_version → 409, one of two concurrent edits wins", async () => {
    const draft = await call("GET", `${T}/latest-flow-draft`);
    expect(draft.json.version).toBe(0);
    const moved = await call("PATCH", `${T}/latest-flow-draft`, {
      expected_version: 0,
      edits: [{ op: "move", step_id: "type_3", to_index: 1 }],
    });
    expect(moved.status).toBe(200);
    expect(moved.json.version).toBe(1);
    const ids = (s: { json: Record<string, unknown> }) =>
      (s.json.steps as Array<{ id: string }>).map((x) => x.id);
    expect(ids(moved)).toEqual(["navigate_1", "type_3", "type_2", "click_4", "click_5"]);
    expect((await call("GET", `${T}/latest-flow`)).json.draft_version).toBe(1);
    const stale = await call("PATCH", `${T}/latest-flow-draft`, {
      expected_version: 0,
      edits: [{ op: "delete", step_id: "click_5" }],
    });
    expect(stale).toMatchObject({ status: 409, json: { error: { code: "VERSION_CONFLICT" } } });
    expect(
      (
        await call("PATCH", `${T}/latest-flow-draft`, {
          expected_version: 1,
          edits: [{ op: "delete", step_id: "x" }],
        })
      ).status,
    ).toBe(404);
    expect((await call("GET", `${T}/latest-flow-draft`)).json.version).toBe(1);

    // Two connections to the same database file edit at version 1 at once (both read it before either
    // writes): exactly one wins, the other answers VERSION_CONFLICT.
    const open = () =>
      openDatabase({
        databaseUrl: `file:${join(t.dir, "test.db")}`,
        databaseAuthToken: undefined,
        dbBusyTimeoutMs: 5000,
      });
    const connections: OpenDatabase[] = [await open(), await open()];
    try {
      let arrived = 0;
      let release: () => void = () => undefined;
      const bothRead = new Promise<void>((resolve) => {
        release = resolve;
      });
      const barrier = async () => {
        arrived += 1;
        if (arrived === 2) release();
        await bothRead;
      };
      const engines = connections.map((c) =>
        createTowerEngine({ db: c.db, runs: t.deps.runs, raceHooks: { beforeDraftWrite: barrier } }),
      );
      const back = { expected_version: 1, edits: [{ op: "move", step_id: "type_3", to_index: 2 }] };
      const results = await Promise.allSettled(engines.map((e) => e.patchDraft(undefined, back)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const lost = results.find((r) => r.status === "rejected");
      expect(lost?.status === "rejected" ? (lost.reason as { code: string }).code : "").toBe(
        "VERSION_CONFLICT",
      );
    } finally {
      for (const c of connections) c.close();
    }
    const now = await call("GET", `${T}/latest-flow-draft`);
    expect(now.json.version).toBe(2);
    expect(ids(now)).toEqual(["navigate_1", "type_2", "type_3", "click_4", "click_5"]);
  });

  it("replays the latest flow, from a step, and one step; evidence shows the matched selector and index", async () => {
    const full = await call("POST", `${T}/replay-latest`, { params: { password: site.password } });
    expect(full.status).toBe(201);
    expect(full.json.template_id).not.toBeNull();
    expect(await finished(runIdOf(full))).toBe("success");
    const ev = await call("GET", `${T}/evidence?step_id=click_4`);
    expect(ev.json.evidence).toMatchObject({
      run_id: runIdOf(full),
      ok: true,
      matched_index: 0,
      matched_selector: { result: "matched" },
    });
    const evidence = ev.json.evidence as Record<string, unknown>;
    expect(String(evidence.after_screenshot_url)).toMatch(/^\/api\/runs\/.+\/screenshots\/after$/);
    expect(typeof evidence.duration_ms).toBe("number");

    // From the checkout link: the run starts there (with the session's login); the sign-in never runs.
    const before = site.requests().length;
    const from = await call("POST", `${T}/replay-latest-from-step`, { step_id: "click_5" });
    expect(from.status).toBe(201);
    expect(from.json).toMatchObject({ start_at_step_id: "pre_click_5", stop_after_step_id: null });
    expect(await finished(runIdOf(from))).toBe("success");
    const seen = site.requests().slice(before);
    expect(seen.some((r) => r.startsWith("POST") && r.endsWith("/login"))).toBe(false);
    expect(seen.some((r) => r.startsWith("GET") && r.endsWith("/otp"))).toBe(true);

    // One step, after its first selector was broken: the fallback finds it, and evidence says so.
    const d = await call("GET", `${T}/latest-flow-draft`);
    const fix = await call("PATCH", `${T}/latest-flow-draft`, {
      expected_version: d.json.version,
      edits: [
        {
          op: "set_selectors",
          step_id: "click_5",
          selectors: [
            { kind: "css", value: "#no-such-link" },
            { kind: "role", value: "link", name: "Go to checkout" },
          ],
        },
      ],
    });
    expect(fix.status).toBe(200);
    const one = await call("POST", `${T}/replay-latest-step`, { step_id: "click_5" });
    expect(one.json).toMatchObject({ start_at_step_id: "pre_click_5", stop_after_step_id: "click_5" });
    expect(await finished(runIdOf(one))).toBe("success");
    const fell = await call("GET", `${T}/evidence?step_id=click_5`);
    expect(fell.json.evidence).toMatchObject({
      run_id: runIdOf(one),
      ok: true,
      matched_index: 1,
      matched_selector: { kind: "role", value: "link" },
    });
    expect((fell.json.evidence as { fallback_trail: unknown[] }).fallback_trail).toHaveLength(2);

    const timeline = await call("GET", `${T}/evidence-timeline?limit=3`);
    const items = timeline.json.items as Array<{ run_id: string }>;
    expect(items).toHaveLength(3);
    expect(items[0]?.run_id).toBe(runIdOf(one));
  });
});
