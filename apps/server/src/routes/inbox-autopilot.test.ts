import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ErrorBody {
  error: { code: string; message: string; details?: { issues?: Array<{ pointer: string }> } };
}
interface JobBody {
  job_id: string;
  kind: string;
  status: string;
  actor: string;
  manifest_job_id: string;
  result: Record<string, unknown> | null;
  completed_with_errors: boolean;
}
interface Scan {
  items: Array<{ watch_source_id: string; batch_id: string | null; files: Array<{ path: string }> }>;
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

/** Every file under `root`, relative, sorted. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function jobsOf(kind: string): Promise<JobBody[]> {
  return (await call<{ items: JobBody[] }>("GET", `/api/jobs?kind=${kind}`)).body.items;
}

async function finished(jobId: string): Promise<JobBody> {
  return until(`job ${jobId}`, async () => {
    const { body } = await call<JobBody>("GET", `/api/jobs/${jobId}`);
    return ["succeeded", "failed", "cancelled"].includes(body.status) ? body : undefined;
  });
}

async function watch(autoApply?: "off" | "auto_safe") {
  t = await createTestApp();
  const inbox = join(t.dir, "inbox");
  mkdirSync(inbox);
  const saved = await call<{ id: string; auto_apply?: string }>("POST", "/api/preferences/watch-sources", {
    name: "Inbox",
    path: inbox,
    enabled: true,
    stability_ms: 100,
    ...(autoApply === undefined ? {} : { auto_apply: autoApply }),
  });
  expect(saved.status).toBe(200);
  await t.deps.inbox.start();
  return { inbox, source: saved.body };
}

describe("inbox autopilot", () => {
  it("with auto_safe organizes a dropped file by itself, leaves the unsure one for review, and never offers its own result again", async () => {
    const { inbox, source } = await watch("auto_safe");
    expect(source.auto_apply).toBe("auto_safe");
    writeFileSync(join(inbox, "notes.txt"), "meeting notes");
    writeFileSync(join(inbox, "mystery.zzz"), "who knows");

    const apply = await until("the autopilot's apply", async () => (await jobsOf("apply"))[0]);
    const applied = await finished(apply.job_id);
    expect(applied).toMatchObject({
      status: "succeeded",
      actor: "inbox-autopilot",
      completed_with_errors: false,
      result: { moved: 1, failed: 0 },
    });
    // The safe file moved into the output root (here the watched folder itself); the unsure one waits.
    const placed = filesUnder(inbox);
    expect(placed).toHaveLength(2);
    expect(placed).toContain("mystery.zzz");
    expect(placed.find((p) => p.endsWith("notes.txt"))).toMatch(/^documents\/\d{4}\/notes\.txt$/);
    const analyze = await finished(applied.manifest_job_id);
    expect(analyze).toMatchObject({ kind: "analyze", actor: "inbox-autopilot" });
    const queue = await call<{
      items: Array<{ source_path: string; review_bucket: string; status: string }>;
    }>("GET", `/api/jobs/${analyze.job_id}/manifest?bucket=needs_review`);
    expect(queue.body.items).toMatchObject([
      { source_path: join(inbox, "mystery.zzz"), review_bucket: "needs_review", status: "pending" },
    ]);

    // Several ticks later: nothing new was analyzed or offered (the moved file is the service's own work).
    await sleep(800);
    expect(await jobsOf("analyze")).toHaveLength(1);
    const scan = await call<Scan>("POST", "/api/inbox/scan");
    expect(scan.body.items[0]?.files).toEqual([]);

    // Undoable like any apply: rollback puts it back, and it is not taken again.
    const rollback = await call<JobBody>("POST", "/api/jobs/rollback", { job_id: apply.job_id });
    expect(await finished(rollback.body.job_id)).toMatchObject({
      status: "succeeded",
      result: { moved_back: 1 },
    });
    expect(filesUnder(inbox)).toEqual(["mystery.zzz", "notes.txt"]);
    await sleep(600);
    expect(await jobsOf("apply")).toHaveLength(1);
    expect((await call<Scan>("POST", "/api/inbox/scan")).body.items[0]?.files).toEqual([]);
  });

  it("with off (explicit or by default) leaves a dropped file for review: nothing is analyzed or moved by itself", async () => {
    for (const mode of ["off", undefined] as const) {
      const { inbox } = await watch(mode);
      writeFileSync(join(inbox, "notes.txt"), "meeting notes");
      await sleep(1000);
      expect(filesUnder(inbox)).toEqual(["notes.txt"]);
      expect(await jobsOf("analyze")).toEqual([]);
      const scan = await call<Scan>("POST", "/api/inbox/scan");
      expect(scan.body.items[0]?.files.map((f) => f.path)).toEqual([join(inbox, "notes.txt")]);
      await t?.close();
      t = undefined;
    }
  });

  it("refuses an unknown auto_apply mode with 400 naming the field", async () => {
    t = await createTestApp();
    const res = await call<ErrorBody>("POST", "/api/preferences/watch-sources", {
      name: "Inbox",
      path: t.dir,
      enabled: true,
      auto_apply: "everything",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.details?.issues?.map((i) => i.pointer)).toEqual(["/auto_apply"]);
  });

  it("refuses to move a watch source outside the allowed roots (403 PATH_OUTSIDE_ROOT) and keeps the stored one", async () => {
    t = await createTestApp();
    const inbox = join(t.dir, "inbox");
    mkdirSync(inbox);
    const saved = await call<{ id: string }>("POST", "/api/preferences/watch-sources", {
      name: "Inbox",
      path: inbox,
      enabled: true,
      auto_apply: "auto_safe",
    });
    outside = realpathSync(mkdtempSync(join(tmpdir(), "vetted-outside-")));
    writeFileSync(join(outside, "secret.txt"), "not yours");
    const moved = await call<ErrorBody>("POST", "/api/preferences/watch-sources", {
      id: saved.body.id,
      name: "Inbox",
      path: outside,
      enabled: true,
      auto_apply: "auto_safe",
    });
    expect(moved.status).toBe(403);
    expect(moved.body.error.code).toBe("PATH_OUTSIDE_ROOT");
    const list = await call<{ items: Array<{ id: string; path: string }> }>(
      "GET",
      "/api/preferences/watch-sources",
    );
    expect(list.body.items.map((i) => [i.id, i.path])).toEqual([[saved.body.id, inbox]]);
    expect(existsSync(join(outside, "secret.txt"))).toBe(true);
  });
});
