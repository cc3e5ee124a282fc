import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

let dir: string;
let site: TestSite;
let server: ServerProcess;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-browser-outbound-"));
  site = await startTestSite();
  server = await startServerProcess({
    VETTED_DATA_DIR: dir,
    VETTED_PROTECTED_PROVIDER_DOMAINS: site.payHost,
    VETTED_RUNS_POLL_MS: "50",
  });
  api = apiClient(server.url);
}, 60_000);

afterAll(async () => {
  await server.kill();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

const CU = "/api/computer-use/sessions";

describe("one outbound policy for the server's browser contexts", { timeout: 120_000 }, () => {
  it("refuses a session whose start_url is the server's own API, directly or through a redirect (START_URL_DENIED)", async () => {
    for (const startUrl of [`${server.url}/api/flows`, `${site.url}/go?to=${server.url}/api/flows`]) {
      const started = await api.post("/api/sessions/start", { start_url: startUrl, mode: "manual" });
      expect(started.status, JSON.stringify(started.json)).toBe(422);
      expect(started.json).toMatchObject({ error: { code: "START_URL_DENIED" } });
      expect(JSON.stringify(started.json)).toContain("the server's own address and port");
    }
  });

  it("refuses a session that would open the protected provider, before it is reached", async () => {
    const before = site.requests().filter((r) => r.includes(site.payHost)).length;
    const started = await api.post("/api/sessions/start", {
      start_url: `${site.payUrl}/pay`,
      mode: "manual",
    });
    expect(started.status).toBe(422);
    expect(started.json).toMatchObject({
      error: { code: "START_URL_DENIED", details: { provider_domain: site.payHost } },
    });
    expect(site.requests().filter((r) => r.includes(site.payHost))).toHaveLength(before);
  });

  it("refuses the cloud metadata address for a session and for a computer-use open, by the policy", async () => {
    const meta = "http://169.254.169.254/latest/meta-data/";
    const started = await api.post("/api/sessions/start", { start_url: meta, mode: "manual" });
    expect(started).toMatchObject({
      status: 422,
      json: { error: { code: "START_URL_DENIED", details: { rule: "169.254.0.0/16" } } },
    });
    const cus = (await api.post(CU, { instruction: `open ${meta}` })).json as { id: string };
    const action = (await api.post(`${CU}/${cus.id}/preview`, {})).json as {
      action_id: string;
      require_confirmation: boolean;
    };
    if (action.require_confirmation)
      await api.post(`${CU}/${cus.id}/confirm/${action.action_id}`, { approved: true });
    const result = await api.post(`${CU}/${cus.id}/execute/${action.action_id}`);
    expect(result.json).toMatchObject({ ok: false });
    expect(String((result.json as { error: string }).error)).toContain(
      "OUTBOUND_DENIED: requests to 169.254.169.254 are denied (169.254.0.0/16)",
    );
  });
});
