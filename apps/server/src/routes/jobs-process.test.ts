import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Job, ManifestPage, ManifestRow } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import type { ErrorEnvelope } from "../errors.js";
import { type ServerProcess, startServerProcess } from "../tests/server-process.js";

let server: ServerProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Calls the server; `T` names the documented shape of the answer the caller expects. */
async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  if (server === undefined) throw new Error("no server");
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed: unknown = await res.json();
  return { status: res.status, body: parsed as T };
}

async function finished(jobId: string): Promise<Job> {
  for (let i = 0; i < 600; i++) {
    const { body } = await api<Job>("GET", `/api/jobs/${jobId}`);
    if (["succeeded", "failed", "cancelled"].includes(body.status)) return body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} did not finish`);
}

function hashes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    out[relative(root, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
  }
  return out;
}

describe("a real server process", () => {
  it("recovers an apply it was SIGKILLed in, keeps every file exactly once, and rolls back exactly", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-proc-")));
    const src = join(dir, "src");
    for (let i = 0; i < 1500; i++) {
      mkdirSync(join(src, `d${i % 10}`), { recursive: true });
      writeFileSync(join(src, `d${i % 10}`, `f${i}.txt`), `file ${i}\n`);
    }
    const original = hashes(src);
    const env = {
      VETTED_DATA_DIR: join(dir, "data"),
      VETTED_ALLOWED_ROOTS: dir,
      VETTED_JOURNAL_KEY: "a-test-journal-key-of-some-length",
    };
    server = await startServerProcess(env);
    const outside = await api<ErrorEnvelope>("POST", "/api/jobs/analyze", { source_dir: tmpdir() });
    expect([outside.status, outside.body.error.code]).toEqual([403, "PATH_OUTSIDE_ROOT"]);
    const analyze = await api<Job>("POST", "/api/jobs/analyze", {
      source_dir: src,
      output_dir: join(dir, "out"),
    });
    await finished(analyze.body.job_id);
    const apply = await api<Job>("POST", "/api/jobs/apply", { job_id: analyze.body.job_id });
    expect(apply.status).toBe(202);
    for (let i = 0; i < 200; i++) {
      const { body } = await api<Job>("GET", `/api/jobs/${apply.body.job_id}`);
      if (body.progress > 0.05 || body.status !== "queued") break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await server.kill();

    server = await startServerProcess(env);
    const job = (await api<Job>("GET", `/api/jobs/${apply.body.job_id}`)).body;
    expect(["failed", "succeeded"]).toContain(job.status);
    if (job.status === "failed") expect(job.error?.code).toBe("INTERRUPTED");
    const rows: ManifestRow[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: ManifestPage } = await api<ManifestPage>(
        "GET",
        `/api/jobs/${analyze.body.job_id}/manifest?limit=500${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      rows.push(...page.body.items);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(rows).toHaveLength(1500);
    for (const row of rows) {
      const atSource = existsSync(row.source_path);
      const atTarget = existsSync(row.target_path);
      expect(atSource !== atTarget).toBe(true);
      expect(row.status).toBe(atTarget ? "applied" : "pending");
    }
    const rollback = await api<Job>("POST", "/api/jobs/rollback", { job_id: apply.body.job_id });
    expect((await finished(rollback.body.job_id)).status).toBe("succeeded");
    expect(hashes(src)).toEqual(original);
    expect(existsSync(join(dir, "out"))).toBe(false);
  }, 60_000);
});
