import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

const SECRET = "card-4242 s3cr3t/Pa55+wörd";
const CODE = "583920";
const NEEDLES = [SECRET, CODE, Buffer.from(SECRET).toString("base64"), encodeURIComponent(SECRET)];

let dir: string;
let server: ServerProcess;
let sink: Server;
let sinkUrl: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-runs-secrets-api-"));
  // A sink on loopback that echoes what it receives, the secret also in base64 and URL-encoded.
  sink = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = JSON.parse(text.length > 0 ? text : "{}") as { otp?: string; card?: string };
    res.setHeader("Content-Type", "application/json");
    res.end(
      JSON.stringify({
        code: body.otp,
        b64: Buffer.from(body.card ?? "").toString("base64"),
        uri: encodeURIComponent(body.card ?? ""),
      }),
    );
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  server = await startServerProcess({
    VETTED_DATA_DIR: dir,
    VETTED_RUNS_LEASE_MS: "1000",
    VETTED_RUNS_POLL_MS: "50",
  });
  api = apiClient(server.url);
}, 60_000); // tsx compiles the server on start-up: slow on a loaded 2-core machine

afterAll(async () => {
  await server?.kill();
  await new Promise<void>((resolve) => (sink ? sink.close(() => resolve()) : resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("secrets through the HTTP API", () => {
  it("shows [redacted] in prompts, errors, events and the SSE stream, and leaves no plain copy on disk", async () => {
    const flow = await api.post("/api/flows", {
      name: "secret-leaks",
      steps: [
        { id: "ask", type: "otp_gate", prompt: "Enter the code sent for ${secrets.card}" },
        { id: "copy", type: "set", vars: { copied: "${gate.otp_code}" } },
        {
          id: "send",
          type: "http",
          method: "POST",
          url: `${sinkUrl}/echo`,
          body: { otp: "${gate.otp_code}", card: "${secrets.card}" },
          expect: { status: [200] },
          extract: { echo: "$.code", b64: "$.b64", uri: "$.uri" },
        },
        {
          id: "check",
          type: "assert",
          value: 1,
          equals: 2,
          message: "card ${secrets.card} refused (${vars.b64})",
        },
      ],
    });
    expect(flow.status).toBe(201);
    const tpl = await api.post("/api/templates", {
      name: "secret-leaks",
      flow_id: (flow.json as { id: string }).id,
      params_schema: [{ key: "card", type: "secret", required: true }],
    });
    expect(tpl.status).toBe(201);
    const created = await api.post("/api/runs", {
      template_id: (tpl.json as { id: string }).id,
      params: { card: SECRET },
    });
    expect(created.status).toBe(201);
    const runId = created.run.id;

    const waiting = await api.waitForRun(runId, (r) => r.status === "waiting_otp");
    expect(waiting.wait_context?.prompt).toBe("Enter the code sent for [redacted]");
    expect((await api.post(`/api/runs/${runId}/otp`, { otp_code: CODE })).status).toBe(200);
    const failed = await api.waitForRun(runId, (r) => r.status === "failed");
    expect(failed.error).toBe("card [redacted] refused ([redacted])");
    expect(failed.vars).toEqual({
      copied: "[redacted]",
      echo: "[redacted]",
      b64: "[redacted]",
      uri: "[redacted]",
    });

    const events = await api.get(`/api/runs/${runId}/events`);
    const stream = await (await fetch(`${server.url}/api/runs/${runId}/events/stream`)).text();
    expect(stream).toContain("card [redacted] refused ([redacted])");
    for (const text of [JSON.stringify(events.json), stream, JSON.stringify(failed), server.stderr()]) {
      for (const needle of NEEDLES) expect(text).not.toContain(needle);
    }

    // The key was generated once, readable by the owner only.
    expect(statSync(join(dir, "runs-secrets.key")).mode & 0o777).toBe(0o600);
    // Killed without a checkpoint: the WAL still holds every write the run made.
    await server.kill();
    const files = ["vetted.db", "vetted.db-wal", "vetted.db-shm"].map((name) => ({
      name,
      bytes: readFileSync(join(dir, name)),
    }));
    expect(files[1]?.bytes.length ?? 0).toBeGreaterThan(0);
    expect(Buffer.concat(files.map((f) => f.bytes)).includes("card [redacted] refused")).toBe(true);
    for (const { name, bytes } of files) {
      for (const needle of NEEDLES) expect(bytes.includes(needle), `${name} holds ${needle}`).toBe(false);
    }
  });
});
