import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Job, ManifestPage, RowPreview } from "@vetted/fileorg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../tests/api-client.js";
import { type RawAnswer, rawRequest } from "../tests/raw-http.js";
import { type ServerProcess, startServerProcess } from "../tests/server-process.js";

// Root reads every file: as root (CI), the server runs under the `nobody` uid so a mode-000 file is unreadable.
const NOBODY = 65534;

/** Whether others (the `nobody` uid) can reach `dir`: not in a checkout under a private folder (`mktemp -d`). */
function reachableByOthers(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (dirname(d) === d) return true;
  }
}

const root = process.getuid?.() === 0;
// As root in a checkout `nobody` cannot reach, the server cannot start as `nobody`: it runs as root, and
// the one case that needs a file root cannot read is skipped.
const asRoot = root && reachableByOthers(import.meta.dirname);

let server: ServerProcess;
let dir: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-defects-")));
  chmodSync(dir, 0o777);
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  server = await startServerProcess(
    { VETTED_DATA_DIR: join(dir, "data"), VETTED_ALLOWED_ROOTS: dir },
    40_000,
    asRoot ? { uid: NOBODY, gid: NOBODY } : {},
  );
  api = apiClient(server.url);
}, 60_000);

afterAll(async () => {
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** A POST with no body at all: no Content-Length, no Transfer-Encoding (as `curl -X POST` sends it). */
function bodylessPost(path: string, contentType?: string): Promise<RawAnswer> {
  const { host } = new URL(server.url);
  const type = contentType === undefined ? "" : `Content-Type: ${contentType}\r\n`;
  return rawRequest(server.url, [
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n${type}Connection: close\r\n\r\n`,
  ]);
}

async function analyzed(name: string, files: Record<string, string>): Promise<Job> {
  const src = join(dir, name);
  mkdirSync(src);
  for (const [file, content] of Object.entries(files)) writeFileSync(join(src, file), content);
  if (asRoot) chownSync(src, NOBODY, NOBODY);
  const job = (await api.post("/api/jobs/analyze", { source_dir: src })).json as Job;
  for (let i = 0; i < 400; i++) {
    const now = (await api.get(`/api/jobs/${job.job_id}`)).json as Job;
    if (now.status === "succeeded") return now;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("analyze did not finish");
}

describe("POSTs that take no body, sent with none", { timeout: 30_000 }, () => {
  it("cancels and retries a job without a body or Content-Type", async () => {
    const job = await analyzed("cancel-me", { "a.txt": "a" });
    const cancel = await bodylessPost(`/api/jobs/${job.job_id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(JSON.parse(cancel.body)).toMatchObject({ job_id: job.job_id, status: "succeeded" });
    const retry = await bodylessPost(`/api/jobs/${job.job_id}/retry`, "text/plain");
    // A succeeded job does not retry: the answer is about the job, not about the missing body.
    expect([retry.status, JSON.parse(retry.body).error.code]).toEqual([409, "JOB_NOT_RETRYABLE"]);
  });

  it("scans the inbox without a body", async () => {
    const scan = await bodylessPost("/api/inbox/scan");
    expect(scan.status).toBe(200);
    expect(JSON.parse(scan.body)).toEqual({ items: [], next_cursor: null });
  });

  it("still answers 415 to a body that is not JSON, sized or chunked", async () => {
    const { host } = new URL(server.url);
    const sized = await rawRequest(server.url, [
      `POST /api/inbox/scan HTTP/1.1\r\nHost: ${host}\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`,
    ]);
    expect([sized.status, JSON.parse(sized.body).error.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    const chunked = await rawRequest(server.url, [
      `POST /api/inbox/scan HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
    ]);
    expect([chunked.status, JSON.parse(chunked.body).error.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
  });
});

describe("previewing a file the server cannot read", { timeout: 30_000 }, () => {
  it("answers 200 with a row-level UNREADABLE error, and previews the readable file beside it", async (ctx) => {
    if (root && !asRoot) ctx.skip("running as root in a checkout the nobody uid cannot reach");
    const job = await analyzed("locked", { "open.txt": "hello", "secret.txt": "top secret" });
    chmodSync(join(dir, "locked", "secret.txt"), 0o000);
    const page = (await api.get(`/api/jobs/${job.job_id}/manifest`)).json as ManifestPage;
    const rowOf = (name: string) => page.items.find((r) => r.source_path.endsWith(name))?.row_id;
    const locked = await api.get(`/api/jobs/${job.job_id}/manifest/${rowOf("secret.txt")}/preview`);
    expect(locked.status).toBe(200);
    expect(locked.json).toMatchObject({
      exists: true,
      kind: "none",
      error: { code: "UNREADABLE", message: expect.stringContaining("EACCES") },
    });
    expect((locked.json as RowPreview).text).toBeUndefined();
    const open = await api.get(`/api/jobs/${job.job_id}/manifest/${rowOf("open.txt")}/preview`);
    expect(open.json).toMatchObject({ kind: "text", text: "hello" });
    expect((open.json as RowPreview).error).toBeUndefined();
  });
});
