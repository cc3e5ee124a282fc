import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { jobs } from "../store/schema.js";
import { createHarness, type Harness, TEST_KEY, writeTree } from "../tests/harness.js";
import { createFileorgEngine } from "./engine.js";
import { createLeaseOwner, isLeaseTakeable, isOwnerGone, setOwnerLive } from "./lease.js";

describe("job leases", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("recovery leaves a job another host holds until its lease runs out, then takes it over", async () => {
    let now = 1_000_000;
    h = await createHarness({ start: false, clock: () => now, leaseMs: 5000 });
    writeTree(h.dir, { "in/a.txt": "a" });
    const job = await h.engine.analyze({ source_dir: `${h.dir}/in` }, { actor: "test" });
    // Another machine's server claimed the job and heartbeats until now + 5 s.
    await h.db
      .update(jobs)
      .set({ status: "running", leaseOwner: "another-host:4242:abcdef", leaseExpiresAt: now + 5000 })
      .where(eq(jobs.id, job.job_id));

    expect(await h.engine.recover()).toEqual([]);
    expect((await h.engine.getJob(job.job_id)).status).toBe("running");
    now += 5001;
    expect((await h.engine.recover()).map((r) => r.jobId)).toEqual([job.job_id]);
    const recovered = await h.engine.getJob(job.job_id);
    expect([recovered.status, recovered.error?.code]).toEqual(["failed", "INTERRUPTED"]);
  });

  it("starts a job queued through another engine that never started it, once it waited longer than a lease", async () => {
    h = await createHarness({ start: false });
    const other = createFileorgEngine({
      db: drizzle(h.db.$client), // a second handle over the same client
      allowedRoots: [h.dir],
      journalKey: TEST_KEY,
      // Short enough to keep the test quick, long enough for a loaded machine to renew the lease in time.
      leaseMs: 1_500,
    });
    await other.start();
    try {
      writeTree(h.dir, { "in/a.txt": "a" });
      // Queued through the harness engine, which has no runner: only the other engine's sweep can start it.
      const job = await h.engine.analyze({ source_dir: `${h.dir}/in` }, { actor: "test" });
      expect((await h.engine.getJob(job.job_id)).status).toBe("queued");
      expect((await h.engine.waitForJob(job.job_id, 20_000)).status).toBe("succeeded");
    } finally {
      await other.stop();
    }
  });

  it("knows an owner of this host is gone when its process no longer exists or its engine stopped", () => {
    const mine = createLeaseOwner();
    expect(isOwnerGone(mine)).toBe(true); // not started
    setOwnerLive(mine, true);
    expect(isOwnerGone(mine)).toBe(false);
    expect(isLeaseTakeable({ leaseOwner: mine, leaseExpiresAt: 10 }, 5)).toBe(false);
    expect(isLeaseTakeable({ leaseOwner: mine, leaseExpiresAt: 10 }, 10)).toBe(true); // expired
    setOwnerLive(mine, false);
    expect(isLeaseTakeable({ leaseOwner: mine, leaseExpiresAt: 10 }, 5)).toBe(true);
    // PID 2^22 + 1 is above Linux's pid_max: no such process.
    expect(isOwnerGone(`${hostname()}:4194305:abc`)).toBe(true);
    expect(isOwnerGone(`${hostname()}:1:abc`)).toBe(false); // init is alive
    expect(isOwnerGone("another-host:1:abc")).toBe(false); // other hosts: only the lease tells
  });

  it("knows an owner is gone when its pid now names a process that started later", () => {
    const parent = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    const start = Number(parent.slice(parent.lastIndexOf(")") + 2).split(" ")[19]);
    expect(isOwnerGone(`${hostname()}:${process.ppid}:${start}.abc`)).toBe(false);
    expect(isOwnerGone(`${hostname()}:${process.ppid}:${start - 1}.abc`)).toBe(true);
    expect(createLeaseOwner()).toMatch(/:\d+:\d+\.[0-9a-f]{12}$/);
  });
});
