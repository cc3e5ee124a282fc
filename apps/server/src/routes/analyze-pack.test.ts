import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface JobBody {
  job_id: string;
  status: string;
  params: Record<string, unknown>;
}

async function post<T>(a: TestApp, path: string, body: unknown) {
  const res = await a.app.request(path, {
    method: "POST",
    headers: { ...LOCAL, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

describe("POST /api/jobs/analyze with strategy_pack_id", () => {
  it("analyzes with the chosen pack (not the active one) and refuses an unknown pack naming the known ones", async () => {
    t = await createTestApp();
    const source = join(t.dir, "inbox");
    mkdirSync(source);
    writeFileSync(join(source, "invoice-2024-03.pdf"), "%PDF-1.4\ninvoice\n%%EOF\n");
    const started = await post<JobBody>(t, "/api/jobs/analyze", {
      source_dir: source,
      output_dir: join(t.dir, "out"),
      strategy_pack_id: "receipts",
    });
    expect(started.status).toBe(202);
    const job = await t.deps.fileorg.waitForJob(started.body.job_id, 30_000);
    expect(job.status).toBe("succeeded");
    expect(job.params).toMatchObject({ strategy_pack_id: "receipts", confidence_threshold: 0.85 });
    const rows = await t.deps.fileorg.listRows(job.job_id);
    expect(rows.items[0]?.applied_rules.map((r) => r.pack_id)).toEqual(["receipts"]);

    const bad = await post<{ error: { code: string; message: string } }>(t, "/api/jobs/analyze", {
      source_dir: source,
      strategy_pack_id: "nope",
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("downloads-cleanup");
  });
});
