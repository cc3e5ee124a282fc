import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

let dir: string;
let server: ServerProcess;
let sink: Server;
let sinkPort: number;
let sinkHits = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-runs-hardening-"));
  sink = createServer((_req, res) => {
    sinkHits++;
    res.end("{}");
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.2", resolve));
  sinkPort = (sink.address() as AddressInfo).port;
  server = await startServerProcess({
    VETTED_DATA_DIR: dir,
    VETTED_PROTECTED_PROVIDER_DOMAINS: "127.0.0.2",
    VETTED_HTTP_DENY: "10.0.0.0/8",
    VETTED_RUNS_POLL_MS: "50",
  });
}, 60_000);

afterAll(async () => {
  await server.kill();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** Sends JSON text as is (a nesting the client's own serializer might not survive). */
async function postText(path: string, text: string) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

async function runFlow(steps: unknown[]) {
  const api = apiClient(server.url);
  const flow = await api.post("/api/flows", { name: "hardening", steps });
  expect(flow.status).toBe(201);
  const run = await api.post("/api/runs", { flow_id: (flow.json as { id: string }).id });
  expect(run.status).toBe(201);
  return api.waitForRun(run.run.id, (r) => r.status !== "queued" && r.status !== "running");
}

describe("the run engine behind the real server", { timeout: 60_000 }, () => {
  it("answers a flow nested 5,000 deep with 400 NESTING_TOO_DEEP", async () => {
    const deep = `${"[".repeat(5_000)}1${"]".repeat(5_000)}`;
    const res = await postText(
      "/api/flows",
      `{"name":"deep","steps":[{"id":"s","type":"set","vars":{"v":${deep}}}]}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("NESTING_TOO_DEEP");
  });

  it("answers run params nested 3,000 deep with 400 NESTING_TOO_DEEP", async () => {
    const api = apiClient(server.url);
    const flow = await api.post("/api/flows", { name: "p", steps: [{ id: "s", type: "set", vars: {} }] });
    const deep = `${'{"a":'.repeat(3_000)}1${"}".repeat(3_000)}`;
    const flowId = (flow.json as { id: string }).id;
    const res = await postText("/api/runs", `{"flow_id":"${flowId}","params":{"p":${deep}}}`);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("NESTING_TOO_DEEP");
  });

  it("answers a pattern that needs backtracking with 422 REGEX_INVALID", async () => {
    const api = apiClient(server.url);
    const res = await api.post("/api/flows", {
      name: "backref",
      steps: [{ id: "c", type: "assert", value: "aa", matches: "(a)\\1" }],
    });
    expect(res.status).toBe(422);
    expect(res.code).toBe("REGEX_INVALID");
  });

  it("refuses an http step that calls the server's own API, without sending it", async () => {
    const run = await runFlow([
      { id: "self", type: "http", method: "POST", url: `${server.url}/api/flows`, body: { name: "x" } },
    ]);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("OUTBOUND_DENIED");
    expect(run.error).toContain("the server's own address and port");
    const flows = await apiClient(server.url).get("/api/flows?limit=100");
    expect((flows.json as { items: Array<{ name: string }> }).items.map((f) => f.name)).not.toContain("x");
  });

  it("denies a host in VETTED_HTTP_DENY and gates the protected provider in any spelling", async () => {
    const denied = await runFlow([{ id: "d", type: "http", url: "http://10.1.2.3/" }]);
    expect(denied.error).toContain("OUTBOUND_DENIED: requests to 10.1.2.3 are denied (10.0.0.0/8)");
    const gated = await runFlow([
      { id: "pay", type: "http", method: "POST", url: `http://[::ffff:7f00:2]:${sinkPort}/pay` },
    ]);
    expect(gated).toMatchObject({
      status: "waiting_user",
      wait_context: { reason_code: "provider_protected_payment_step", provider_domain: "127.0.0.2" },
    });
    expect(sinkHits).toBe(0);
  });
});

describe("VETTED_HTTP_ALLOW and VETTED_HTTP_DENY", () => {
  it("reads comma-separated hosts and CIDRs", () => {
    const config = loadConfig({
      VETTED_DATA_DIR: "/tmp/vetted-data",
      VETTED_HTTP_ALLOW: " api.example.com , 10.0.0.0/8",
      VETTED_HTTP_DENY: "[::ffff:7f00:1]",
    });
    expect(config.httpAllow).toEqual(["api.example.com", "10.0.0.0/8"]);
    expect(config.httpDeny).toEqual(["[::ffff:7f00:1]"]);
  });

  it("refuses an entry that is no host or CIDR, saying what to write instead", () => {
    expect(() => loadConfig({ VETTED_HTTP_DENY: "10.0.0.0/99" })).toThrow(ConfigError);
    expect(() => loadConfig({ VETTED_HTTP_ALLOW: "exa mple.com" })).toThrow(
      /VETTED_HTTP_ALLOW: "exa mple.com" is not a host name, IP address or CIDR range.*comma-separated/,
    );
  });
});
