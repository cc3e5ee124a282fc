import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeCursor } from "@vetted/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp;
let jobId: string;

beforeAll(async () => {
  t = await createTestApp();
  const source = join(t.dir, "in");
  mkdirSync(source, { recursive: true });
  for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(source, name), `file ${name}\n`);
  const job = await t.deps.fileorg.analyze(
    { source_dir: source, output_dir: join(t.dir, "out") },
    { actor: "local" },
  );
  jobId = (await t.deps.fileorg.waitForJob(job.job_id, 30_000)).job_id;
  for (const name of ["w1", "w2"]) {
    const path = join(t.dir, "watch", name);
    mkdirSync(path, { recursive: true });
    await t.deps.preferences.save("watch-sources", { name, path, enabled: true });
  }
});
afterAll(async () => {
  await t.close();
});

async function call(method: string, path: string) {
  const res = await t.app.request(path, { method, headers: LOCAL });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

/** Every list route of review, preferences and inbox, by method and path. */
const LISTS: ReadonlyArray<[string, () => string]> = [
  ["GET", () => `/api/jobs/${jobId}/review-queue`],
  ["GET", () => "/api/preferences/learned-rules"],
  ["GET", () => "/api/preferences/watch-sources"],
  ["GET", () => "/api/preferences/review-rules"],
  ["GET", () => "/api/preferences/naming-templates"],
  ["GET", () => "/api/preferences/views"],
  ["POST", () => "/api/inbox/scan"],
];

describe("review, preferences and inbox lists over HTTP", () => {
  it.each(LISTS)("%s %s answers 400 CURSOR_INVALID to ?cursor=garbage", async (method, path) => {
    const res = await call(method, `${path()}?cursor=garbage`);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("CURSOR_INVALID");
  });

  it.each(LISTS)("%s %s answers 400 CURSOR_INVALID to a cursor of another list", async (method, path) => {
    const foreign = encodeCursor("fileorg.some-other-list", [1]);
    const res = await call(method, `${path()}?cursor=${foreign}`);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("CURSOR_INVALID");
  });

  it("pages watch sources and inbox batches with next_cursor", async () => {
    const first = (await t.app.request("/api/preferences/watch-sources?limit=1", { headers: LOCAL })).json();
    const page = (await first) as { items: Array<{ name: string }>; next_cursor: string | null };
    expect(page.items.map((s) => s.name)).toEqual(["w1"]);
    expect(page.next_cursor).not.toBeNull();
    const rest = await t.app.request(`/api/preferences/watch-sources?limit=1&cursor=${page.next_cursor}`, {
      headers: LOCAL,
    });
    const second = (await rest.json()) as { items: Array<{ name: string }>; next_cursor: string | null };
    expect(second).toMatchObject({ items: [{ name: "w2" }], next_cursor: null });
    const scan = await t.app.request("/api/inbox/scan?limit=1", { method: "POST", headers: LOCAL });
    const batches = (await scan.json()) as { items: unknown[]; next_cursor: string | null };
    expect(batches.items).toHaveLength(1);
    expect(batches.next_cursor).not.toBeNull();
  });
});
