import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";
import { createTestApp, LOCAL } from "./tests/test-app.js";

let server: ServerProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface JobBody {
  job_id: string;
  status: string;
}

describe("one server process, one database, every engine writing at once", { timeout: 90_000 }, () => {
  it("finishes file jobs and runs side by side without a busy database or a failed write", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-shared-")));
    const src = join(dir, "src");
    for (let i = 0; i < 600; i++) {
      mkdirSync(join(src, `d${i % 6}`), { recursive: true });
      writeFileSync(join(src, `d${i % 6}`, `note-${i}.txt`), `note ${i}\n`);
    }
    server = await startServerProcess({
      VETTED_DATA_DIR: join(dir, "data"),
      VETTED_ALLOWED_ROOTS: dir,
      VETTED_JOURNAL_KEY: "a-test-journal-key-of-some-length",
      // A lock wait in one engine that never ends would surface as SQLITE_BUSY after this long.
      VETTED_DB_BUSY_TIMEOUT_MS: "2000",
      VETTED_RUNS_POLL_MS: "20",
    });
    const api = apiClient(server.url);
    const job = async (jobId: string): Promise<JobBody> => {
      for (let i = 0; i < 1200; i++) {
        const { json } = await api.get(`/api/jobs/${jobId}`);
        const body = json as JobBody;
        if (["succeeded", "failed", "cancelled"].includes(body.status)) return body;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`job ${jobId} did not finish`);
    };

    const flow = await api.post("/api/flows", {
      name: "counting",
      steps: [
        { id: "one", type: "set", vars: { a: "1" } },
        { id: "two", type: "set", vars: { b: "${vars.a}2" } },
        { id: "three", type: "assert", value: "${vars.b}", equals: "12" },
      ],
    });
    expect(flow.status).toBe(201);
    const flowId = (flow.json as { id: string }).id;

    const analyze = await api.post("/api/jobs/analyze", { source_dir: src, output_dir: join(dir, "out") });
    expect(analyze.status).toBe(202);
    const created = await Promise.all(
      Array.from({ length: 40 }, () => api.post("/api/runs", { flow_id: flowId, params: {} })),
    );
    expect(created.map((c) => c.status)).toEqual(created.map(() => 201));
    expect((await job((analyze.json as JobBody).job_id)).status).toBe("succeeded");

    const apply = await api.post("/api/jobs/apply", { job_id: (analyze.json as JobBody).job_id });
    expect(apply.status).toBe(202);
    const more = await Promise.all(
      Array.from({ length: 40 }, () => api.post("/api/runs", { flow_id: flowId, params: {} })),
    );
    expect((await job((apply.json as JobBody).job_id)).status).toBe("succeeded");

    const runs = await Promise.all(
      [...created, ...more].map((c) =>
        api.waitForRun(c.run.id, (r) => r.status === "success" || r.status === "failed", 30_000),
      ),
    );
    expect(runs.filter((r) => r.status !== "success")).toEqual([]);
    expect(server.stderr()).not.toMatch(/SQLITE_BUSY|database is locked/);
  });

  it("queues writes from different engines in one process instead of deadlocking on the database", async () => {
    const t = await createTestApp();
    try {
      const json = { ...LOCAL, "Content-Type": "application/json" };
      const flow = await t.app.request("/api/flows", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ name: "one-step", steps: [{ id: "s", type: "set", vars: { a: 1 } }] }),
      });
      const flowId = ((await flow.json()) as { id: string }).id;
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => [
          t.app.request("/api/runs", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ flow_id: flowId, params: {} }),
          }),
          t.app.request("/api/preferences/naming-templates", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ name: `template ${i}`, template: "{category}/{yyyy}/{name}{ext}" }),
          }),
        ]).flat(),
      );
      expect(answers.map((a) => a.status).filter((s) => s >= 300)).toEqual([]);
      // A cross-engine lock wait would stall for the whole busy timeout (5 s) before failing.
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      await t.close();
    }
  });
});
