import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

let dir: string;
let site: TestSite;
let server: ServerProcess;
let api: ReturnType<typeof apiClient>;

const env = () => ({
  VETTED_DATA_DIR: dir,
  VETTED_PROTECTED_PROVIDER_DOMAINS: "127.0.0.2",
  VETTED_RUNS_POLL_MS: "50",
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-cu-"));
  site = await startTestSite();
  server = await startServerProcess(env());
  api = apiClient(server.url);
}, 60_000);

afterAll(async () => {
  await server.kill();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

function body<T>(answer: Answer): T {
  if (answer.status >= 400) throw new Error(`HTTP ${answer.status}: ${JSON.stringify(answer.json)}`);
  return answer.json as T;
}

interface Action {
  action_id: string;
  risk_level: string;
  require_confirmation: boolean;
}
const CU = "/api/computer-use/sessions";

/** Creates a computer-use session in `sessionId`, previews its action and executes it (when allowed). */
async function act(sessionId: string, instruction: string) {
  const cus = body<{ id: string }>(await api.post(CU, { instruction, session_id: sessionId }));
  const action = body<Action>(await api.post(`${CU}/${cus.id}/preview`, {}));
  return { cus: cus.id, action };
}

describe("computer use over HTTP", { timeout: 120_000 }, () => {
  it('runs "click Sign in" (medium) right after its preview', async () => {
    const session = body<{ id: string }>(
      await api.post("/api/sessions/start", { start_url: `${site.url}/login`, mode: "ai" }),
    );
    for (const instruction of [`type ${site.email} into Email`, `type "${site.password}" into Password`]) {
      const { cus, action } = await act(session.id, instruction);
      expect(action.risk_level).toBe("medium");
      expect(body<{ ok: boolean }>(await api.post(`${CU}/${cus}/execute/${action.action_id}`)).ok).toBe(true);
    }
    const { cus, action } = await act(session.id, "click Sign in");
    expect(action).toMatchObject({ risk_level: "medium", require_confirmation: false });
    const result = body<{ ok: boolean; url_after: string }>(
      await api.post(`${CU}/${cus}/execute/${action.action_id}`),
    );
    expect(result).toMatchObject({ ok: true, url_after: `${site.url}/account` });
    const evidence = body<{ items: Array<{ id: string; kind: string }> }>(
      await api.get(`${CU}/${cus}/evidence`),
    );
    expect(evidence.items.map((e) => e.kind)).toEqual([
      "preview_screenshot",
      "before_screenshot",
      "after_screenshot",
    ]);
    const png = await fetch(`${server.url}${CU}/${cus}/evidence/${evidence.items[2]?.id}`);
    expect(png.headers.get("content-type")).toBe("image/png");
    const shot = await fetch(`${server.url}/api/sessions/${session.id}/screenshot`);
    expect(shot.status).toBe(200);
    expect(
      Buffer.from(await shot.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
  });

  it('answers "click Pay now" (critical) with 409 until confirmed, then pays once for four concurrent executes', async () => {
    const session = body<{ id: string }>(
      // A session may not open the provider itself; the shop embeds its card form.
      await api.post("/api/sessions/start", { start_url: `${site.url}/frames` }),
    );
    // The card form's frame loads after the session's page: preview once it shows "Pay now".
    let { cus, action } = await act(session.id, "click Pay now");
    for (let i = 0; i < 50 && action.risk_level !== "critical"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ({ cus, action } = await act(session.id, "click Pay now"));
    }
    expect(action).toMatchObject({ risk_level: "critical", require_confirmation: true });
    const early = await api.post(`${CU}/${cus}/execute/${action.action_id}`);
    expect(early).toMatchObject({ status: 409, code: "CONFIRMATION_REQUIRED" });
    expect(site.payments()).toBe(0);
    const confirmed = await api.post(`${CU}/${cus}/confirm/${action.action_id}`, {
      approved: true,
      confirmation_reason: "ok",
    });
    expect(confirmed.status).toBe(200);
    const [a, ...others] = await Promise.all(
      Array.from({ length: 4 }, () => api.post(`${CU}/${cus}/execute/${action.action_id}`)),
    );
    if (a === undefined) throw new Error("no answer");
    expect(a.status).toBe(200);
    for (const other of others) expect(other.json).toEqual(a.json);
    expect(a.json).toMatchObject({
      ok: true,
      url_after: `${site.url}/frames`,
      action: { status: "executed" },
    });
    expect(site.payments()).toBe(1);

    const rejected = await act(session.id, `open ${site.payUrl}/pay`);
    expect(rejected.action.risk_level).toBe("critical"); // any action reaching the protected provider
    await api.post(`${CU}/${rejected.cus}/confirm/${rejected.action.action_id}`, { approved: false });
    expect(await api.post(`${CU}/${rejected.cus}/execute/${rejected.action.action_id}`)).toMatchObject({
      status: 409,
      code: "ACTION_REJECTED",
    });
    const odd = body<{ id: string }>(
      await api.post(CU, { instruction: "make it cheaper", session_id: session.id }),
    );
    const refused = await api.post(`${CU}/${odd.id}/preview`, {});
    expect(refused).toMatchObject({ status: 422, code: "INSTRUCTION_NOT_UNDERSTOOD" });
    expect((refused.json as { error: { message: string } }).error.message).toContain(
      "type <text> into <field>",
    );
  });

  it("refuses a file: start_url with 400", async () => {
    for (const start_url of ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)"]) {
      const answer = await api.post("/api/sessions/start", { start_url });
      expect(answer.status).toBe(400);
      expect(answer.code).toBe("VALIDATION_FAILED");
    }
  });

  it("keeps computer-use sessions, actions and evidence across a server restart", async () => {
    const cus = body<{ id: string }>(
      await api.post(CU, { instruction: `open ${site.url}/login`, metadata: { ticket: "T-9" } }),
    );
    const action = body<Action>(await api.post(`${CU}/${cus.id}/preview`, {}));
    const result = await api.post(`${CU}/${cus.id}/execute/${action.action_id}`);
    expect(result.status).toBe(200);
    const evidence = await api.get(`${CU}/${cus.id}/evidence`);
    const sessions = body<{ items: Array<{ id: string; status: string }> }>(
      await api.get("/api/sessions?limit=500"),
    );
    expect(sessions.items.length).toBeGreaterThanOrEqual(2);

    await server.kill();
    server = await startServerProcess(env());
    api = apiClient(server.url);

    expect(await api.get(`${CU}/${cus.id}`)).toMatchObject({
      status: 200,
      json: { metadata: { ticket: "T-9" }, action_count: 1 },
    });
    expect((await api.get(`${CU}/${cus.id}/evidence`)).json).toEqual(evidence.json);
    expect((await api.post(`${CU}/${cus.id}/execute/${action.action_id}`)).json).toEqual(result.json);
    const live = sessions.items.find((s) => s.status === "active");
    if (live === undefined) throw new Error("expected a session left active");
    expect(await api.get(`/api/sessions/${live.id}`)).toMatchObject({ json: { status: "failed" } });
    expect(await api.post(`/api/sessions/${live.id}/finish`)).toMatchObject({
      status: 409,
      code: "SESSION_NOT_ACTIVE",
    });
  });
});
