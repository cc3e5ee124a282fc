import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import { runs } from "../store/schema.js";
import { openTestEngine, waitFor } from "./harness.js";
import { startSink } from "./sink.js";

/*
 * Recovery after a crash: a server process (a child running runs) is SIGKILLed; the runs it held under
 * live 30 s leases are finished by the next process on the same database file at once, because their owner
 * is provably gone. A live peer's runs are never taken.
 */

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, "..", "..");
const LEASE_MS = 30_000;
const STEPS = ["s1", "s2", "s3", "s4", "s5"];

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server process over `file` (default lease) that started its worker; answers its worker id. */
async function serverProcess(file: string, concurrency: number) {
  // node itself on a bundle of the child (no TypeScript loader, and no tsx CLI running the script in a
  // grandchild): the SIGKILL lands on the process that holds the leases.
  const child: ChildProcess = spawn(
    process.execPath,
    [await bundledChild(packageDir, join(here, "recovery-child.ts")), file, String(concurrency)],
    { cwd: packageDir, stdio: ["ignore", "pipe", "inherit"] },
  );
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
  };
  cleanups.push(kill);
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const first = await createInterface({ input: stdout })[Symbol.asyncIterator]().next();
  const line = String(first.value);
  expect(line).toMatch(/^ready /);
  return { workerId: line.slice("ready ".length), kill };
}

/** A sink counting hits per `/<run n>/<step>`, answering each after `delayMs` (step `s1`: `firstMs`). */
async function countingSink(delayMs: number, firstMs = delayMs) {
  const sink = await startSink((req, res) => {
    setTimeout(() => res.end('{"ok":true}'), req.url?.endsWith("/s1") ? firstMs : delayMs);
  });
  cleanups.push(sink.close);
  const hits = () => {
    const counts = new Map<string, number>();
    for (const r of sink.received) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
    return counts;
  };
  return { sink, hits };
}

/** A test engine (not started, default-length lease) with `count` queued runs of a 5-step `http` flow. */
async function queuedRuns(sinkUrl: string, count: number) {
  const t = await openTestEngine({ leaseMs: LEASE_MS, pollMs: 20, concurrency: 8 });
  cleanups.push(t.close);
  const flow = await t.engine.createFlow({
    name: "five requests",
    steps: STEPS.map((id) => ({
      id,
      type: "http" as const,
      method: "GET" as const,
      url: `\${params.sink}/\${params.n}/${id}`,
      expect: { status: [200] },
    })),
  });
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    ids.push((await t.engine.createRun({ flow_id: flow.id, params: { sink: sinkUrl, n: String(n) } })).id);
  }
  return { t, ids };
}

const rowsOf = (t: Awaited<ReturnType<typeof queuedRuns>>["t"], ids: string[]) =>
  t.db
    .select({ id: runs.id, status: runs.status, owner: runs.leaseOwner, expires: runs.leaseExpiresAt })
    .from(runs)
    .where(inArray(runs.id, ids));

describe("recovery of runs whose lease owner is gone", { timeout: 60_000 }, () => {
  it("claims a SIGKILLed server's runs again within a second or two of the next start, none lost", async () => {
    const RUNS = 12;
    const { sink, hits } = await countingSink(30);
    const { t, ids } = await queuedRuns(sink.url, RUNS);
    const dead = await serverProcess(t.file, 4);
    // Killed mid-way: some steps done, its runs held under leases that would last another ~30 s.
    await waitFor(
      async () => sink.received.length,
      (n) => n >= 20,
      20_000,
    );
    await dead.kill();
    const left = (await rowsOf(t, ids)).filter((r) => r.status === "running");
    expect(left.length).toBeGreaterThan(0);
    for (const r of left) {
      expect(r.owner?.startsWith(`${dead.workerId}#`)).toBe(true);
      expect(r.expires ?? 0).toBeGreaterThan(Date.now() + LEASE_MS / 2);
    }
    const t0 = Date.now();
    t.engine.start();
    // Claimed again at once (their owner is gone), not when their leases run out.
    await waitFor(
      () =>
        rowsOf(
          t,
          left.map((r) => r.id),
        ),
      (rows) => rows.every((r) => !r.owner?.startsWith(`${dead.workerId}#`)),
      2_000,
    );
    const reclaimMs = Date.now() - t0;
    // And all finished, well before those leases would have run out.
    await waitFor(
      () => rowsOf(t, ids),
      (rows) => rows.every((r) => r.status === "success"),
      LEASE_MS / 3,
    );
    const counts = hits();
    const lost = ids.flatMap((_, n) => STEPS.filter((s) => (counts.get(`/${n}/${s}`) ?? 0) === 0));
    const repeated = [...counts.values()].filter((c) => c > 1).length;
    expect(lost).toEqual([]);
    // Only a step in flight at the kill may run again (a GET is idempotent): at most one per run it held.
    expect(repeated).toBeLessThanOrEqual(4);
    expect(reclaimMs).toBeLessThan(2_000);
  });

  it("never takes the runs a live peer holds; takes them at once when that peer dies", async () => {
    const { sink } = await countingSink(20, 2_500);
    const { t, ids } = await queuedRuns(sink.url, 3);
    const peer = await serverProcess(t.file, 4);
    // The peer claimed all three and holds each in its first step (a 2.5 s request).
    await waitFor(
      async () => sink.received.length,
      (n) => n === 3,
      20_000,
    );
    t.engine.start();
    // Well past this engine's start-up scan and its next ones.
    await new Promise((r) => setTimeout(r, 1_500));
    for (const r of await rowsOf(t, ids)) {
      expect(r.status).toBe("running");
      expect(r.owner?.startsWith(`${peer.workerId}#`)).toBe(true);
    }
    expect(sink.received.map((r) => r.path).sort()).toEqual(["/0/s1", "/1/s1", "/2/s1"]);
    // A peer that dies while this engine runs: its runs are taken over within a scan, not a lease (their
    // first step, in flight at the kill, runs again: 2.5 s).
    await peer.kill();
    const t0 = Date.now();
    await waitFor(
      () => rowsOf(t, ids),
      (rows) => rows.every((r) => r.status === "success"),
      LEASE_MS / 3,
    );
    expect(Date.now() - t0).toBeLessThan(2_500 + 3_000);
  });
});
