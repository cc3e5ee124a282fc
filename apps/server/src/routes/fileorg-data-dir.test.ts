import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Job, ManifestPage } from "@vetted/fileorg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../tests/api-client.js";
import { type ServerProcess, startServerProcess } from "../tests/server-process.js";

let dir: string;
let server: ServerProcess | undefined;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-datadir-")));
});

// Each layout starts its own server (twice); the one still running is stopped before the next layout.
afterEach(async () => {
  await server?.kill();
  server = undefined;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A home folder (the one allowed root) with one file to organize. */
function homeFolder(name: string): string {
  const home = join(dir, name);
  mkdirSync(home);
  writeFileSync(join(home, "report.txt"), "a report");
  return home;
}

// The default layout: the data directory (database, WAL, keys) inside the home folder. Then the database
// moved out of it by DATABASE_URL, still inside the root: its file, WAL and shared memory are protected.
const LAYOUTS = [
  { name: "the database in the data directory", database: undefined },
  { name: "the database elsewhere in the root", database: "db/vetted.db" },
];

async function finished(api: ReturnType<typeof apiClient>, jobId: string): Promise<Job> {
  for (let i = 0; i < 400; i++) {
    const job = (await api.get(`/api/jobs/${jobId}`)).json as Job;
    if (["succeeded", "failed", "cancelled"].includes(job.status)) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe.each(LAYOUTS)("the server's own data, $name", ({ database }) => {
  it("is never a movable row of an include_hidden analyze of its root, and survives apply and a restart", async () => {
    const home = homeFolder(database === undefined ? "home" : "home-db");
    const dataDir = join(home, ".local", "share", "vetted");
    const env: Record<string, string> = { VETTED_DATA_DIR: dataDir, VETTED_ALLOWED_ROOTS: home };
    if (database !== undefined) env.DATABASE_URL = `file:${join(home, database)}`;
    const protectedRows =
      database === undefined
        ? [dataDir]
        : [dataDir, ...["", "-shm", "-wal"].map((suffix) => join(home, `${database}${suffix}`))];
    server = await startServerProcess(env, 60_000);
    let api = apiClient(server.url);
    const analyze = await api.post("/api/jobs/analyze", { source_dir: home, include_hidden: true });
    expect(analyze.status).toBe(202);
    const jobId = (analyze.json as Job).job_id;
    expect(await finished(api, jobId)).toMatchObject({ status: "succeeded" });
    const rows = ((await api.get(`/api/jobs/${jobId}/manifest?limit=500`)).json as ManifestPage).items;
    const guarded = rows.filter((r) => r.error?.code === "PROTECTED_PATH");
    expect(guarded.map((r) => r.source_path).sort()).toEqual(protectedRows.sort());
    expect(guarded.every((r) => r.action === "skip" && r.review_bucket === "blocked")).toBe(true);
    expect(rows.filter((r) => r.action === "move").map((r) => r.source_path)).toEqual([
      join(home, "report.txt"),
    ]);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(["fileorg-journal.key", "runs-secrets.key"]));

    const apply = await api.post("/api/jobs/apply", { job_id: jobId });
    expect(await finished(api, (apply.json as Job).job_id)).toMatchObject({
      status: "succeeded",
      result: { moved: 1 },
    });
    // The server refuses to plan into its own data directory too.
    const into = await api.post("/api/jobs/analyze", {
      source_dir: home,
      output_dir: join(dataDir, "sorted"),
    });
    expect([into.status, into.code]).toEqual([403, "PATH_PROTECTED"]);

    await server.stop();
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(["fileorg-journal.key", "runs-secrets.key"]));
    server = await startServerProcess(env, 60_000);
    api = apiClient(server.url);
    // The same database after the restart: the jobs are still there.
    expect((await api.get(`/api/jobs/${jobId}`)).json).toMatchObject({ job_id: jobId, status: "succeeded" });
  }, 90_000);
});
