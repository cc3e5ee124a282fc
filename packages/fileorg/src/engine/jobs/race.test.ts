import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient } from "@libsql/client";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate } from "../../store/migrate.js";
import { events, jobs } from "../../store/schema.js";
import { TEST_KEY } from "../../tests/harness.js";
import type { Database } from "../db.js";
import { createFileorgResources, type FileorgResources } from "../resources.js";
import { createJobRun } from "../run.js";
import { claimNext, renewLease } from "./claim.js";
import { createJob } from "./create.js";
import { finishJob } from "./finish.js";
import { recoverInterruptedJobs, takeOver } from "./recovery.js";

/** Two engines' resources over two separate connections (two libsql clients) to one database file. */
let dir: string;
let clients: Client[];

async function openConnection(path: string): Promise<Database> {
  const client = createClient({ url: `file:${path}`, timeout: 5000 });
  await client.execute("PRAGMA journal_mode = WAL");
  clients.push(client);
  return drizzle(client);
}

function resourcesOver(db: Database, clock: () => number = Date.now): FileorgResources {
  return createFileorgResources({ db, allowedRoots: [dir], journalKey: TEST_KEY, clock, leaseMs: 5000 });
}

/** A promise and its resolver. */
function signal() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-race-")));
  clients = [];
});

afterEach(() => {
  for (const c of clients) c.close();
  rmSync(dir, { recursive: true, force: true });
});

async function twoEngines(clock?: () => number) {
  const path = join(dir, "race.db");
  const first = await openConnection(path);
  await migrate(first);
  const second = await openConnection(path);
  return { a: resourcesOver(first, clock), b: resourcesOver(second, clock) };
}

async function queueAnalyze(res: FileorgResources) {
  mkdirSync(join(dir, "in"), { recursive: true });
  writeFileSync(join(dir, "in", "a.txt"), "a");
  const params = { source_dir: join(dir, "in"), output_dir: join(dir, "in"), naming_template: "{name}{ext}" };
  return createJob(res, "analyze", { params }, { actor: "test" });
}

describe("job claim race (two connections)", () => {
  it("two engines that both read the same queued job: exactly one claims it", async () => {
    const { a, b } = await twoEngines();
    const job = await queueAnalyze(a);
    const bRead = signal();
    const aDone = signal();
    // Both engines read the queued job before either claims it; A claims first, then B tries.
    a.hooks.beforeClaim = async () => {
      await bRead.promise;
    };
    b.hooks.beforeClaim = async () => {
      bRead.resolve();
      await aDone.promise;
    };
    const claimA = claimNext(a).finally(() => aDone.resolve());
    const claimB = claimNext(b);
    const [gotA, gotB] = await Promise.all([claimA, claimB]);
    const claimed = [gotA, gotB].filter((j) => j !== undefined);
    expect(claimed.map((j) => j.id)).toEqual([job.job_id]);
    expect(gotA?.leaseOwner).toBe(a.lease.owner);
    const [row] = await a.ctx.db.select().from(jobs).where(eq(jobs.id, job.job_id));
    expect([row?.status, row?.leaseOwner]).toEqual(["running", a.lease.owner]);
    const started = await a.ctx.db.select().from(events).where(eq(events.jobId, job.job_id));
    expect(started.filter((e) => e.type === "started")).toHaveLength(1);
  });
});

describe("stale lease owner (two connections)", () => {
  it("cannot finish, or renew, a job another owner took over after its lease ran out", async () => {
    let now = 1_000_000;
    const { a, b } = await twoEngines(() => now);
    const job = await queueAnalyze(a);
    const claimed = await claimNext(a);
    expect(claimed?.id).toBe(job.job_id);
    if (claimed === undefined) return;
    now += 5001; // A's lease ran out without a heartbeat
    const taken = await takeOver(b, claimed);
    expect(taken?.leaseOwner).toBe(b.lease.owner);
    // A comes back and reports success: not its job any more.
    const run = createJobRun(a.ctx, claimed, () => false);
    const end = { result: { files: 1 }, thrown: null, stopping: false };
    expect(await finishJob(a, run, end)).toBe(false);
    expect(await renewLease(a, job.job_id)).toBe(false);
    const [row] = await b.ctx.db.select().from(jobs).where(eq(jobs.id, job.job_id));
    expect([row?.status, row?.leaseOwner, row?.finishedAt]).toEqual(["running", b.lease.owner, null]);
    // The new owner's outcome is the one recorded.
    expect(
      await finishJob(
        b,
        createJobRun(b.ctx, claimed, () => false),
        end,
      ),
    ).toBe(true);
    const [done] = await b.ctx.db.select().from(jobs).where(eq(jobs.id, job.job_id));
    expect(done?.status).toBe("succeeded");
  });

  it("recovery by another owner settles the job; the stale owner's finish changes nothing", async () => {
    let now = 2_000_000;
    const { a, b } = await twoEngines(() => now);
    const job = await queueAnalyze(a);
    const claimed = await claimNext(a);
    if (claimed === undefined) throw new Error("not claimed");
    now += 5001;
    expect((await recoverInterruptedJobs(b)).map((r) => r.jobId)).toEqual([job.job_id]);
    const run = createJobRun(a.ctx, claimed, () => false);
    expect(await finishJob(a, run, { result: { files: 1 }, thrown: null, stopping: false })).toBe(false);
    const [row] = await a.ctx.db.select().from(jobs).where(eq(jobs.id, job.job_id));
    expect([row?.status, row?.error?.code]).toEqual(["failed", "INTERRUPTED"]);
  });
});
