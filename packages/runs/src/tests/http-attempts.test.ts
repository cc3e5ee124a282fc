import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FlowInput } from "../index.js";
import { openSecondEngine, openTestEngine, waitFor } from "./harness.js";

const GOOD = "123456";
const WRONG = "000000";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One request the verifier received: its key, the code it carried and what it was answered. */
interface Seen {
  key: string;
  code: unknown;
  status?: number;
}

/**
 * A verifier on 127.0.0.1 that honours `Idempotency-Key` as payment APIs do: a new key is processed
 * (`POST /verify` answers 200 for {@link GOOD}, 402 otherwise) and its answer stored; the same key with
 * the same body gets the stored answer again; the same key with another body is refused with 400.
 * `hold(code)` leaves the first request carrying that code unanswered until `release()`.
 */
async function startVerifier(hold?: string) {
  const seen: Seen[] = [];
  const answered = new Map<string, { body: string; status: number }>();
  const bodies = new Map<string, string>();
  const held: Array<() => void> = [];
  const answer = (res: ServerResponse, entry: Seen, key: string, body: string, status: number) => {
    entry.status = status;
    answered.set(key, { body, status });
    res.statusCode = status;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ verified: status === 200 }));
  };
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    const key = String(req.headers["idempotency-key"] ?? "");
    const code = (JSON.parse(body) as { code?: unknown }).code;
    const entry: Seen = { key, code };
    seen.push(entry);
    const earlier = bodies.get(key);
    if (earlier !== undefined && earlier !== body) {
      entry.status = 400;
      res.statusCode = 400;
      res.end(JSON.stringify({ error: "Keys for idempotent requests can only be used with the same body" }));
      return;
    }
    bodies.set(key, body);
    const stored = answered.get(key);
    if (stored !== undefined) return answer(res, entry, key, body, stored.status);
    const status = code === GOOD ? 200 : 402;
    if (hold !== undefined && code === hold && held.length === 0) {
      held.push(() => answer(res, entry, key, body, status));
      return;
    }
    answer(res, entry, key, body, status);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(async () => {
    for (const release of held.splice(0)) release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    release: () => {
      for (const r of held.splice(0)) r();
    },
  };
}

function verifyFlow(url: string): FlowInput {
  return {
    name: "verify",
    steps: [
      { id: "code", type: "otp_gate", prompt: "Code?" },
      {
        id: "verify",
        type: "http",
        method: "POST",
        url: `${url}/verify`,
        body: { code: "${gate.otp_code}" },
        expect: { status: [200] },
      },
    ],
  };
}

type Opened = Awaited<ReturnType<typeof openTestEngine>>;

/** Creates a run of the verify flow, waits at the code gate, sends a wrong code and waits for the loop-back. */
async function afterWrongCode(t: Opened, url: string) {
  const flow = await t.engine.createFlow(verifyFlow(url));
  const run = await t.engine.createRun({ flow_id: flow.id });
  await waitFor(
    () => t.engine.getRun(run.id),
    (r) => r.status === "waiting_otp",
  );
  await t.engine.resumeRun(run.id, { kind: "otp", otp_code: WRONG });
  await waitFor(
    () => t.engine.getRun(run.id),
    (r) => r.status === "waiting_otp" && r.otp_attempts === 1,
  );
  return run;
}

describe("the http step's Idempotency-Key, per attempt", () => {
  it("sends the right code after a wrong one under a new key, so an API that honours keys accepts it", async () => {
    const verifier = await startVerifier();
    const t = await openTestEngine();
    cleanups.push(t.close);
    t.engine.start();
    const run = await afterWrongCode(t, verifier.url);
    await t.engine.resumeRun(run.id, { kind: "otp", otp_code: GOOD });
    const done = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running" && r.status !== "waiting_otp",
    );
    expect(verifier.seen).toEqual([
      { key: `${run.id}:verify:1`, code: WRONG, status: 402 },
      { key: `${run.id}:verify:2`, code: GOOD, status: 200 },
    ]);
    expect(done).toMatchObject({ status: "success", otp_attempts: 1 });
  });

  it("re-sends an in-doubt attempt under the same key after a crash, so the far side can deduplicate it", async () => {
    const verifier = await startVerifier(GOOD);
    const a = await openTestEngine({ leaseMs: 1000 });
    cleanups.push(a.close);
    a.engine.start();
    const run = await afterWrongCode(a, verifier.url);
    await a.engine.resumeRun(run.id, { kind: "otp", otp_code: GOOD });
    await waitFor(
      async () => verifier.seen.length,
      (n) => n === 2,
    );
    // Worker A is sending the right code when worker B (its clock past A's lease) re-claims the run.
    const b = await openSecondEngine(a.file, { clock: { now: () => Date.now() + 5_000 } });
    cleanups.push(b.close);
    b.engine.start();
    await waitFor(
      () => b.engine.getRun(run.id),
      (r) => r.status === "waiting_user" && r.wait_context?.reason_code === "step_outcome_unknown",
    );
    verifier.release();
    await a.engine.stop();
    await b.engine.resumeRun(run.id, { kind: "approval", approved: true });
    const done = await waitFor(
      () => b.engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running",
    );
    expect(verifier.seen.map((s) => s.key)).toEqual([
      `${run.id}:verify:1`,
      `${run.id}:verify:2`,
      `${run.id}:verify:2`,
    ]);
    expect(verifier.seen.map((s) => s.status)).toEqual([402, 200, 200]);
    expect(done.status).toBe("success");
  });
});
