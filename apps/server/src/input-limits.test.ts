import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, apiClient } from "./tests/api-client.js";
import { rawRequest } from "./tests/raw-http.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

let server: ServerProcess;
let dir: string;
let api: ReturnType<typeof apiClient>;

/** `[[[…1…]]]` nested `depth` deep, as JSON text (JSON.stringify itself would overflow at 5,000). */
function nestedText(depth: number): string {
  return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

/** POSTs a JSON text as is; `$DEEP` in `template` is replaced by `deep`. */
async function postText(path: string, template: unknown, deep: string): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(template).replace('"$DEEP"', deep),
  });
  const text = await res.text();
  const json: unknown = JSON.parse(text);
  return { status: res.status, json, run: json as Answer["run"], code: undefined, headers: res.headers };
}

function expectEnvelope(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.json).toMatchObject({
    error: { code, message: expect.any(String), request_id: expect.any(String) },
  });
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-limits-")));
  server = await startServerProcess({
    VETTED_DATA_DIR: join(dir, "data"),
    VETTED_ALLOWED_ROOTS: dir,
    VETTED_HEADERS_TIMEOUT_MS: "600",
    VETTED_REQUEST_TIMEOUT_MS: "1000",
    VETTED_RUNS_POLL_MS: "50",
  });
  api = apiClient(server.url);
}, 60_000);

afterAll(async () => {
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe("JSON bodies nested too deep", () => {
  it("answers 400 NESTING_TOO_DEEP for a flow whose step value nests 5,000 deep", async () => {
    const answer = await postText(
      "/api/flows",
      { name: "deep", steps: [{ id: "a", type: "set", vars: { x: "$DEEP" } }] },
      nestedText(5000),
    );
    expectEnvelope(answer, 400, "NESTING_TOO_DEEP");
    expect((await api.get("/api/flows")).json).toMatchObject({ items: [] });
  });

  it("answers 400 NESTING_TOO_DEEP for a run whose params nest 3,000 deep", async () => {
    const flow = await api.post("/api/flows", {
      name: "flat",
      steps: [{ id: "a", type: "set", vars: { x: 1 } }],
    });
    expect(flow.status).toBe(201);
    const flowId = (flow.json as { id: string }).id;
    const answer = await postText(
      "/api/runs",
      { flow_id: flowId, params: { deep: "$DEEP" } },
      nestedText(3000),
    );
    expectEnvelope(answer, 400, "NESTING_TOO_DEEP");
    expect((await api.get("/api/runs")).json).toMatchObject({ items: [] });
  });

  it("accepts a body nested exactly to the limit", async () => {
    // The body's own brackets (object, steps, step, vars) plus 60 make 64.
    const answer = await postText(
      "/api/flows",
      { name: "at-limit", steps: [{ id: "a", type: "set", vars: { x: "$DEEP" } }] },
      nestedText(60),
    );
    expect(answer.status).toBe(201);
  });

  it("answers a comparison text nested 5,000 deep with a NESTING_TOO_DEEP issue, not a 500", async () => {
    const answer = await api.post("/api/comparison/validate", { text: nestedText(5000) });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      ok: false,
      valid: false,
      issues: [{ code: "NESTING_TOO_DEEP", line: 1, column: 65 }],
    });
  });
});

describe("query values", () => {
  it.each(["1e309", "Infinity", "-1", "1.5", "abc"])(
    "answers 400 CURSOR_INVALID for the audit cursor %s",
    async (cursor) => {
      const job = await api.post("/api/jobs/analyze", { source_dir: dir, output_dir: join(dir, "out") });
      expect(job.status).toBe(202);
      const jobId = (job.json as { job_id: string }).job_id;
      expectEnvelope(
        await api.get(`/api/jobs/${jobId}/audit?cursor=${encodeURIComponent(cursor)}`),
        400,
        "CURSOR_INVALID",
      );
      expect((await api.get(`/api/jobs/${jobId}/audit?cursor=0`)).status).toBe(200);
    },
  );

  it("answers 400 CURSOR_INVALID for a cursor no list could have made", async () => {
    expectEnvelope(await api.get("/api/runs?cursor=%00..%2F"), 400, "CURSOR_INVALID");
    expectEnvelope(await api.get(`/api/flows?cursor=${"a".repeat(600)}`), 400, "CURSOR_INVALID");
  });

  it.each(["1e309", "Infinity", "NaN", "1.5", "-3"])(
    "answers 400 VALIDATION_FAILED for the limit %s",
    async (limit) => {
      expectEnvelope(await api.get(`/api/runs?limit=${limit}`), 400, "VALIDATION_FAILED");
    },
  );
});

describe("requests Node itself refuses", () => {
  it("answers oversized headers with a 431 envelope and closes the connection", async () => {
    const answer = await rawRequest(server.url, [
      `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(32 * 1024)}\r\n\r\n`,
    ]);
    expect(answer.status).toBe(431);
    expect(answer.headers["content-type"]).toMatch(/application\/json/);
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: "REQUEST_HEADER_FIELDS_TOO_LARGE", request_id: answer.headers["x-request-id"] },
    });
  });

  it("answers a request line that is not HTTP with a 400 envelope", async () => {
    const answer = await rawRequest(server.url, ["GET /api/health HTTP/1.1 extra\r\n\r\n"]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: "BAD_REQUEST", request_id: expect.any(String) },
    });
  });

  it.each(["a b", "127.0.0.1:99999", "[::1", "user@127.0.0.1"])(
    "answers the malformed Host %j with a 400 or 403 envelope",
    async (host) => {
      const answer = await rawRequest(server.url, [
        `GET /api/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ]);
      expect([400, 403]).toContain(answer.status);
      expect(answer.headers["content-type"]).toMatch(/application\/json/);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { code: expect.stringMatching(/^(BAD_REQUEST|FORBIDDEN_HOST)$/) },
      });
    },
  );

  it("answers headers that trickle in slower than VETTED_HEADERS_TIMEOUT_MS with a 408 envelope", async () => {
    const answer = await rawRequest(
      server.url,
      [
        "GET /api/health HTTP/1.1\r\n",
        "Host: 127.0.0.1\r\n",
        "X-Slow: 1\r\n",
        "X-Slow: 2\r\n",
        "X-Slow: 3\r\n",
        "\r\n",
      ],
      400,
    );
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "REQUEST_TIMEOUT" } });
    expect(answer.ms).toBeLessThan(1900);
  });

  it("answers a body that trickles in slower than VETTED_REQUEST_TIMEOUT_MS with a 408 envelope", async () => {
    const body = JSON.stringify({ name: "slow", steps: [{ id: "a", type: "set", vars: { x: 1 } }] });
    const head = `POST /api/flows HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await rawRequest(server.url, [head, ...body.slice(0, 6).split("")], 300);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "REQUEST_TIMEOUT" } });
  });
});

describe("bodies the server never reads", () => {
  it("answers a body over the limit with Connection: close, so a keep-alive client's next requests succeed", async () => {
    for (let round = 0; round < 2; round++) {
      const res = await fetch(`${server.url}/api/flows`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: `"${"a".repeat(1_100_000)}"`,
      });
      expect(res.status).toBe(413);
      expect(res.headers.get("connection")).toBe("close");
      expect(await res.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
      for (let i = 0; i < 3; i++) expect((await api.get("/api/health")).status).toBe(200);
    }
  });
});

describe("an early answer to a body still being sent", () => {
  // Its own server with the default request timeout: the upload below takes ~0.5 s, and on a loaded machine
  // longer than the 1 s the timeout tests above need, which would answer 408 instead.
  let patient: ServerProcess | undefined;
  beforeAll(async () => {
    patient = await startServerProcess({
      VETTED_DATA_DIR: join(dir, "data-patient"),
      VETTED_ALLOWED_ROOTS: dir,
    });
  }, 60_000);
  afterAll(async () => {
    await patient?.kill();
  });

  it("reads the rest of the body first, so a slow uploader receives the 413 instead of a reset", async () => {
    if (patient === undefined) throw new Error("the server did not start");
    const { hostname, port } = new URL(patient.url);
    const size = 1_100_000;
    const socket = connect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    const failures: string[] = [];
    socket.on("error", (err: NodeJS.ErrnoException) => failures.push(err.code ?? err.message));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(
      `POST /api/flows HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    let sent = 0;
    const piece = "a".repeat(110_000);
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 40));
      if (socket.destroyed || received.length > 0) break;
      await new Promise<void>((resolve) => socket.write(piece, () => resolve()));
      sent += piece.length;
    }
    await closed;
    // Without the drain the server answers at once and closes while the client is still sending.
    expect(failures).toEqual([]);
    expect(sent).toBe(size);
    const text = Buffer.concat(received).toString("utf8");
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toContain('"PAYLOAD_TOO_LARGE"');
  });
});

describe("event streams and the request timeout", () => {
  it("keeps a run's event stream open longer than VETTED_REQUEST_TIMEOUT_MS", async () => {
    const flow = await api.post("/api/flows", {
      name: "gated",
      steps: [{ id: "ok", type: "approval_gate" }],
    });
    const flowId = (flow.json as { id: string }).id;
    const run = await api.post("/api/runs", { flow_id: flowId });
    expect(run.status).toBe(201);
    await api.waitForRun(run.run.id, (r) => r.status === "waiting_user");
    const res = await fetch(`${server.url}/api/runs/${run.run.id}/events/stream`);
    expect(res.status).toBe(200);
    const body = res.body;
    if (body === null) throw new Error("the stream has no body");
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readAll = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    })();
    await new Promise((r) => setTimeout(r, 2500)); // well past the 1,000 ms request timeout
    expect(text).toContain("event: run_created");
    expect(
      (await api.post(`/api/runs/${run.run.id}/resume`, { kind: "approval", approved: true })).status,
    ).toBe(200);
    await readAll;
    expect(text).toContain('"to":"success"');
  });
});
