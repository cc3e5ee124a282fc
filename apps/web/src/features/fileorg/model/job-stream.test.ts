import { describe, expect, it } from "vitest";
import { foldJobFrame, isActive, jobsNewestFirst, type LiveJob, upsertJob } from "./job-stream.js";

const job = (id: string, status: string, updated: string, created = "2026-01-01T00:00:00Z"): LiveJob => ({
  job_id: id,
  kind: "analyze",
  status,
  phase: "walk",
  progress: 0.5,
  created_at: created,
  updated_at: updated,
});

describe("the live jobs list", () => {
  it("folds a snapshot, then job frames, keeping the newest state of each job", () => {
    let m: ReadonlyMap<string, LiveJob> = new Map([["a", job("a", "succeeded", "2026-01-01T00:00:09Z")]]);
    m = foldJobFrame(m, "snapshot", JSON.stringify({ last_event_id: 3, items: [job("b", "running", "t1")] }));
    expect([...m.keys()]).toEqual(["a", "b"]);
    m = foldJobFrame(m, "job", JSON.stringify({ job: job("b", "succeeded", "t2"), event: {} }));
    expect(m.get("b")?.status).toBe("succeeded");
    // A repeated, older frame does not undo a newer state.
    m = foldJobFrame(m, "job", JSON.stringify({ job: job("b", "running", "t1"), event: {} }));
    expect(m.get("b")?.status).toBe("succeeded");
  });

  it("ignores heartbeats, unknown frames and broken data", () => {
    const m = new Map([["a", job("a", "running", "t1")]]);
    expect(foldJobFrame(m, "message", "{}")).toBe(m);
    expect(foldJobFrame(m, "job", "not json")).toBe(m);
    expect(upsertJob(m, job("a", "running", "t0")).get("a")?.updated_at).toBe("t1");
  });

  it("lists newest first and knows which jobs are still moving", () => {
    const m = new Map([
      ["a", job("a", "queued", "t", "2026-01-01T00:00:00Z")],
      ["b", job("b", "failed", "t", "2026-01-02T00:00:00Z")],
    ]);
    expect(jobsNewestFirst(m).map((j) => j.job_id)).toEqual(["b", "a"]);
    expect(["queued", "running", "cancelling", "failed"].map(isActive)).toEqual([true, true, true, false]);
  });
});
