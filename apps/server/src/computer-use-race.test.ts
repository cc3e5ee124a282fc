import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, apiClient } from "./tests/api-client.js";
import { type Loopback, serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, type TestApp } from "./tests/test-app.js";

let site: TestSite;
let t: TestApp;
let http: Loopback;
let api: ReturnType<typeof apiClient>;
/** Executes held at the racy point (read done, claim not yet made) until two are there. */
const held: Array<() => void> = [];

async function beforeClaim(): Promise<void> {
  await new Promise<void>((resolve) => {
    held.push(resolve);
    if (held.length >= 2) for (const release of held.splice(0)) release();
    else setTimeout(resolve, 3_000);
  });
}

beforeAll(async () => {
  site = await startTestSite();
  t = await createTestApp({}, { protectedDomains: [site.payHost] }, {}, { raceHooks: { beforeClaim } });
  http = await serveOnLoopback(t.app.fetch);
  api = apiClient(http.url);
}, 60_000);

afterAll(async () => {
  await http.close();
  await t.close();
  await site.close();
});

function body<T>(answer: Answer): T {
  if (answer.status >= 400) throw new Error(`HTTP ${answer.status}: ${JSON.stringify(answer.json)}`);
  return answer.json as T;
}

const CU = "/api/computer-use/sessions";

describe("concurrent executes of one action over HTTP", { timeout: 60_000 }, () => {
  it("execute it once: both requests, held together at the claim, answer the one result", async () => {
    // A session may not open the provider itself; the shop embeds its card form.
    const session = body<{ id: string }>(
      await api.post("/api/sessions/start", { start_url: `${site.url}/frames` }),
    );
    const previewPay = async () => {
      const cus = body<{ id: string }>(
        await api.post(CU, { instruction: "click Pay now", session_id: session.id }),
      );
      const action = body<{ action_id: string; risk_level: string }>(
        await api.post(`${CU}/${cus.id}/preview`, {}),
      );
      return { cus, action };
    };
    // The card form's frame loads after the session's page: preview once it shows "Pay now".
    let { cus, action } = await previewPay();
    for (let i = 0; i < 50 && action.risk_level !== "critical"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ({ cus, action } = await previewPay());
    }
    expect(action.risk_level).toBe("critical");
    body(await api.post(`${CU}/${cus.id}/confirm/${action.action_id}`, { approved: true }));

    const [a, b] = await Promise.all([
      api.post(`${CU}/${cus.id}/execute/${action.action_id}`),
      api.post(`${CU}/${cus.id}/execute/${action.action_id}`),
    ]);
    expect(a.status).toBe(200);
    expect(b.json).toEqual(a.json);
    expect(a.json).toMatchObject({ ok: true, url_after: `${site.url}/frames` });
    expect(site.payments()).toBe(1);
    const evidence = body<{ items: Array<{ action_id: string | null; kind: string }> }>(
      await api.get(`${CU}/${cus.id}/evidence`),
    );
    expect(evidence.items.filter((e) => e.action_id === action.action_id).map((e) => e.kind)).toEqual([
      "preview_screenshot",
      "before_screenshot",
      "after_screenshot",
    ]);
  });
});
