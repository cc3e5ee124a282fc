/**
 * Bench: recovery after kill -9. A server process runs 200 workflows of 5 checkpointed `http` steps (a
 * loopback sink counts every request, answering after 5 ms); it is SIGKILLed half-way (500 of the 1,000
 * steps sent), a new server process starts on the same database file, and the bench times how long until
 * every run has succeeded, from the new process's spawn and from its worker's start. It counts lost steps
 * (a step of a succeeded run never sent), repeated steps (sent more than once) and skipped runs (not
 * succeeded). Both processes keep the default 30 s lease. Run with `pnpm --filter @vetted/runs bench:recovery`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { openDatabase } from "@vetted/store/database";
import { eq, inArray } from "drizzle-orm";
import { createRunsEngine, migrate } from "../src/index.js";
import { runs } from "../src/store/schema.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);
const STEPS = ["s1", "s2", "s3", "s4", "s5"];
const here = dirname(fileURLToPath(import.meta.url));
const key = randomBytes(32);

const hits = new Map<string, number>();
let sent = 0;
const sink = createServer((req, res) => {
  sent += 1;
  hits.set(req.url ?? "", (hits.get(req.url ?? "") ?? 0) + 1);
  req.resume();
  setTimeout(() => res.end('{"ok":true}'), 5);
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

/** A server process over `file`; resolves once its worker started. */
async function server(file: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@vetted/source",
      "--import",
      "tsx",
      join(here, "recovery-child.ts"),
      file,
      key.toString("hex"),
    ],
    { cwd: join(here, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const first = await createInterface({ input: stdout })[Symbol.asyncIterator]().next();
  if (first.value !== "ready") throw new Error(`the server said ${String(first.value)}`);
  return child;
}

async function trial() {
  hits.clear();
  sent = 0;
  const dir = mkdtempSync(join(tmpdir(), "vetted-runs-recovery-"));
  const file = join(dir, "bench.db");
  const { db, client } = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
  await migrate(db);
  const engine = createRunsEngine({ db, secretsKey: key }); // never started: creates and reads only
  const flow = await engine.createFlow({
    name: "five requests",
    steps: STEPS.map((id) => ({
      id,
      type: "http" as const,
      method: "GET" as const,
      url: `\${params.sink}/\${params.n}/${id}`,
      expect: { status: [200] },
    })),
  });
  for (let n = 0; n < RUNS; n++)
    await engine.createRun({ flow_id: flow.id, params: { sink: sinkUrl, n: String(n) } });
  const first = await server(file);
  const firstAt = performance.now();
  while (sent < (RUNS * STEPS.length) / 2) await new Promise((r) => setTimeout(r, 1));
  const halfMs = performance.now() - firstAt;
  const exited = once(first, "exit");
  first.kill("SIGKILL");
  await exited;
  const held = await db
    .select({ id: runs.id, owner: runs.leaseOwner })
    .from(runs)
    .where(eq(runs.status, "running"));
  const heldAtKill = held.length;
  const spawnedAt = performance.now();
  const second = server(file);
  let readyAt = Number.NaN;
  void second.then(() => {
    readyAt = performance.now();
  });
  const giveUpAt = spawnedAt + 120_000;
  // The killed process's runs are reclaimed once none of them still carries its lease.
  let reclaimedAt = Number.NaN;
  const watch = (async () => {
    while (performance.now() < giveUpAt) {
      const now = await db
        .select({ owner: runs.leaseOwner })
        .from(runs)
        .where(
          inArray(
            runs.id,
            held.map((h) => h.id),
          ),
        );
      const old = new Set(held.map((h) => h.owner));
      if (now.every((r) => !old.has(r.owner))) {
        reclaimedAt = performance.now();
        return;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  let succeeded = 0;
  while (succeeded < RUNS && performance.now() < giveUpAt) {
    succeeded = (await engine.countRunsByStatus()).success;
    if (succeeded < RUNS) await new Promise((r) => setTimeout(r, 5));
  }
  const doneAt = performance.now();
  await watch;
  const child = await second;
  const exitedToo = once(child, "exit");
  child.kill("SIGKILL");
  await exitedToo;
  await engine.stop();
  client.close();
  rmSync(dir, { recursive: true, force: true });
  let lost = 0;
  let repeated = 0;
  for (let n = 0; n < RUNS; n++) {
    for (const s of STEPS) {
      const c = hits.get(`/${n}/${s}`) ?? 0;
      if (c === 0 && succeeded === RUNS) lost += 1;
      if (c > 1) repeated += c - 1;
    }
  }
  const skipped = RUNS - succeeded;
  return {
    halfMs,
    reclaimMs: reclaimedAt - readyAt,
    fromSpawnMs: doneAt - spawnedAt,
    fromStartMs: doneAt - readyAt,
    heldAtKill,
    lost,
    repeated,
    skipped,
  };
}

console.log(
  `recovery after kill -9 half-way through ${RUNS} workflows of ${STEPS.length} http steps (default 30 s lease, concurrency 4):`,
);
for (let i = 1; i <= TRIALS; i++) {
  const r = await trial();
  console.log(
    `  trial ${i}: the ${r.heldAtKill} runs the killed process held were claimed again ${r.reclaimMs.toFixed(0)} ms after the new process's worker started; ` +
      `all ${RUNS} runs done ${r.fromStartMs.toFixed(0)} ms after it started (${r.fromSpawnMs.toFixed(0)} ms after its spawn; the first half took ${r.halfMs.toFixed(0)} ms); ` +
      `lost steps ${r.lost}, repeated steps ${r.repeated}, runs not finished ${r.skipped}`,
  );
}
sink.close();
