import { mkdirSync, mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Job, JobEventList } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "../tests/server-process.js";

const servers: ServerProcess[] = [];
let dir: string | undefined;
afterEach(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  servers.length = 0;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Calls `server`; `T` names the documented shape of the answer the caller expects. */
async function api<T = unknown>(
  server: ServerProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed: unknown = await res.json();
  return parsed as T;
}

async function until(server: ServerProcess, jobId: string, done: (job: Job) => boolean): Promise<Job> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await api<Job>(server, "GET", `/api/jobs/${jobId}`);
    if (done(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${job.status} after 60 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const isFinished = (job: Job) => ["succeeded", "failed", "cancelled"].includes(job.status);

describe("two server processes on one database", () => {
  it("leave each other's running jobs alone, and one takes over the jobs of the other once it is killed", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-two-")));
    const src = join(dir, "src");
    mkdirSync(src);
    for (let i = 0; i < 20; i++) writeFileSync(join(src, `note-${i}.txt`), `note ${i}\n`);
    // A sparse 3 GiB file: hashing it keeps an analyze running for seconds (longer than a second server
    // takes to start on a loaded machine) without writing anything to disk.
    writeFileSync(join(src, "big.bin"), "");
    truncateSync(join(src, "big.bin"), 3 * 2 ** 30);
    const env = {
      VETTED_DATA_DIR: join(dir, "data"),
      VETTED_ALLOWED_ROOTS: dir,
      VETTED_JOURNAL_KEY: "a-test-journal-key-of-some-length",
      // Short enough that B takes over a killed A's job in seconds; long enough that a live A's heartbeat,
      // late by a loaded machine's stalls, still holds its lease.
      VETTED_FILEORG_LEASE_MS: "3000",
    };
    const a = await startServerProcess(env);
    servers.push(a);
    const first = await api<Job>(a, "POST", "/api/jobs/analyze", {
      source_dir: src,
      output_dir: join(dir, "out"),
    });
    await until(a, first.job_id, (job) => job.status !== "queued");

    // B starts (and runs its start-up recovery) while A's analyze runs, then sweeps for dead owners.
    const b = await startServerProcess(env);
    servers.push(b);
    expect((await api<Job>(b, "GET", `/api/jobs/${first.job_id}`)).status).toBe("running");
    const done = await until(b, first.job_id, isFinished);
    expect([done.status, done.error]).toEqual(["succeeded", null]);
    const events = await api<JobEventList>(b, "GET", `/api/jobs/${first.job_id}/events`);
    expect(events.items.map((e) => e.type)).not.toContain("recovered");

    // A runs another analyze and is killed in the middle of it: B, still serving, takes the job over.
    const second = await api<Job>(a, "POST", "/api/jobs/analyze", {
      source_dir: src,
      output_dir: join(dir, "out"),
    });
    await until(a, second.job_id, (job) => job.status === "running");
    await a.kill();
    const recovered = await until(b, second.job_id, isFinished);
    expect([recovered.status, recovered.error?.code]).toEqual(["failed", "INTERRUPTED"]);
    // The retry need not hash 3 GiB a third time (CPU every other suite shares).
    truncateSync(join(src, "big.bin"), 1024);
    const retry = await api<Job>(b, "POST", `/api/jobs/${second.job_id}/retry`);
    expect((await until(b, retry.job_id, isFinished)).status).toBe("succeeded");
  }, 180_000);
});
