import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
let outside: string | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  if (outside !== undefined) rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

const WHEN = new Date("2026-02-03T04:05:06Z");

/** A folder outside the test app's allowed roots (it allows only its own temp directory). */
function outsideFolder(files: Record<string, string>): string {
  outside = realpathSync(mkdtempSync(join(tmpdir(), "vetted-outside-")));
  write(outside, files);
  return outside;
}

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    utimesSync(p, WHEN, WHEN);
  }
}

interface ErrorBody {
  error: { code: string; message: string };
}

interface Scan {
  items: Array<{
    watch_source_id: string;
    batch_id: string | null;
    files: Array<{ path: string; size: number; mtime: number }>;
    error?: { code: string; message: string };
  }>;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === "" ? {} : JSON.parse(text)) as T };
}

async function waitFor(jobId: string): Promise<{ status: string; result: Record<string, unknown> | null }> {
  for (let i = 0; i < 400; i++) {
    const { body } = await call<{ status: string; result: Record<string, unknown> | null }>(
      "GET",
      `/api/jobs/${jobId}`,
    );
    if (["succeeded", "failed", "cancelled"].includes(body.status)) return body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe("watch sources stay inside the allowed roots", () => {
  it("refuses a watch source outside the roots with 403 PATH_OUTSIDE_ROOT", async () => {
    t = await createTestApp();
    const away = outsideFolder({ ssh_config: "Host *" });
    for (const path of [away, "/etc", join(t.dir, "link-out")]) {
      if (path.endsWith("link-out")) symlinkSync(away, path);
      const res = await call<ErrorBody>("POST", "/api/preferences/watch-sources", {
        name: `Outside ${path}`,
        path,
        enabled: true,
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("PATH_OUTSIDE_ROOT");
    }
    expect((await call<{ items: unknown[] }>("GET", "/api/preferences/watch-sources")).body.items).toEqual(
      [],
    );
  });

  it("never scans or lists a source that became a symlink to an outside folder after it was saved", async () => {
    t = await createTestApp();
    const inbox = join(t.dir, "inbox");
    write(inbox, { "mine.txt": "mine" });
    const saved = await call<{ id: string }>("POST", "/api/preferences/watch-sources", {
      name: "Inbox",
      path: inbox,
      enabled: true,
      stability_ms: 0,
    });
    expect(saved.status).toBe(200);
    await t.deps.inbox.start();
    const first = await call<Scan>("POST", "/api/inbox/scan");
    expect(first.body.items[0]?.files.map((f) => f.path)).toEqual([join(inbox, "mine.txt")]);

    const away = outsideFolder({ ssh_config: "Host * secret" });
    rmSync(inbox, { recursive: true });
    symlinkSync(away, inbox);
    const res = await t.app.request("/api/inbox/scan", { method: "POST", headers: LOCAL });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain("ssh_config");
    const scan = JSON.parse(text) as Scan;
    expect(scan.items[0]).toMatchObject({
      watch_source_id: saved.body.id,
      batch_id: null,
      files: [],
      error: { code: "PATH_OUTSIDE_ROOT" },
    });
    const analyze = await call<ErrorBody>("POST", "/api/inbox/analyze", { watch_source_id: saved.body.id });
    expect(analyze.status).toBe(403);
    expect(analyze.body.error.code).toBe("PATH_OUTSIDE_ROOT");
  });

  it("drops a file whose folder inside the source was swapped for a symlink to an outside folder", async () => {
    t = await createTestApp();
    const inbox = join(t.dir, "inbox");
    write(inbox, { "sub/report.txt": "inside" });
    await call("POST", "/api/preferences/watch-sources", {
      name: "Inbox",
      path: inbox,
      enabled: true,
      stability_ms: 0,
    });
    const first = await call<Scan>("POST", "/api/inbox/scan");
    expect(first.body.items[0]?.files.map((f) => f.size)).toEqual([6]);

    const away = outsideFolder({ "report.txt": "outside, and longer" });
    rmSync(join(inbox, "sub"), { recursive: true });
    symlinkSync(away, join(inbox, "sub"));
    const res = await t.app.request("/api/inbox/scan", { method: "POST", headers: LOCAL });
    const scan = (await res.json()) as Scan;
    expect(scan.items[0]?.files).toEqual([]);
    expect(JSON.stringify(scan)).not.toContain(String(statSync(join(away, "report.txt")).size));
  });

  it("refuses a runtime default output root outside the roots with 403 PATH_OUTSIDE_ROOT", async () => {
    t = await createTestApp();
    const res = await call<ErrorBody>("POST", "/api/preferences/runtime", {
      default_output_root: "/etc/out",
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("PATH_OUTSIDE_ROOT");
  });
});

describe("apply through the HTTP API", () => {
  it("leaves an outside file alone when a source folder is swapped for a symlink to it after analyze", async () => {
    t = await createTestApp();
    const src = join(t.dir, "src");
    write(src, { "sub/report.txt": "inside!", "top.txt": "top" });
    const analyze = await call<{ job_id: string }>("POST", "/api/jobs/analyze", {
      source_dir: src,
      output_dir: join(t.dir, "out"),
    });
    expect(analyze.status).toBe(202);
    await waitFor(analyze.body.job_id);
    const away = outsideFolder({ "report.txt": "OUTSIDE" }); // same name, size and mtime
    rmSync(join(src, "sub"), { recursive: true });
    symlinkSync(away, join(src, "sub"));

    const apply = await call<{ job_id: string }>("POST", "/api/jobs/apply", { job_id: analyze.body.job_id });
    expect(apply.status).toBe(202);
    const done = await waitFor(apply.body.job_id);
    expect(done.result).toMatchObject({ moved: 1, failed: 1 });
    const byError = (done.result?.by_error ?? {}) as Record<string, number>;
    expect((byError.OUTSIDE_ROOT ?? 0) + (byError.SOURCE_CHANGED ?? 0)).toBe(1);
    expect(readFileSync(join(away, "report.txt"), "utf8")).toBe("OUTSIDE");
  });
});

describe("review-rule regexes run in linear time", () => {
  it("refuses a pattern the linear-time engine cannot run with 422 REGEX_INVALID, and saves a nested quantifier", async () => {
    t = await createTestApp();
    const refused = await call<ErrorBody>("POST", "/api/preferences/review-rules", {
      name: "Backreference",
      conditions: { all: [{ field: "name_regex", regex: "^(a)\\1$" }] },
      actions: [{ type: "skip" }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("REGEX_INVALID");

    const saved = await call<{ id: string }>("POST", "/api/preferences/review-rules", {
      name: "Catastrophic for a backtracking engine",
      conditions: { all: [{ field: "name_regex", regex: "^(a+)+$" }] },
      actions: [{ type: "skip" }],
    });
    expect(saved.status).toBe(200);
    const src = join(t.dir, "src");
    write(src, { [`${"a".repeat(28)}!`]: "x", aaaa: "y" });
    const analyze = await call<{ job_id: string }>("POST", "/api/jobs/analyze", { source_dir: src });
    await waitFor(analyze.body.job_id);
    const started = performance.now();
    const preview = await call<{ matched_count: number }>(
      "POST",
      `/api/jobs/${analyze.body.job_id}/review-rules/preview`,
      { rule_id: saved.body.id },
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect(preview.status).toBe(200);
    expect(preview.body.matched_count).toBe(1);
  });
});
