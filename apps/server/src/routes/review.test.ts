import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post = (body: unknown) => ({
  method: "POST",
  headers: { ...LOCAL, "Content-Type": "application/json" },
  body: JSON.stringify(body),
});
const PDF = "%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
/** A small PDF whose content (and hash) is its own. */
const pdf = (tag: string) => `${PDF}% ${tag}\n`;

interface QueueRow {
  row_id: string;
  source_path: string;
  target_path: string;
  category: string;
  confidence: number;
  action: string;
  review_bucket: string;
  reason_codes: string[];
  reasons: Array<{ code: string; label: string }>;
  suggestions: Array<{ field: string; value: string; agrees: boolean }>;
}
interface QueuePage {
  items: QueueRow[];
  next_cursor: string | null;
  revision: number;
  summary: {
    total: number;
    needing_attention: number;
    buckets: Record<string, number>;
    top_reasons: Array<{ code: string; label: string; count: number }>;
  };
}

async function started() {
  t = await createTestApp();
  await t.deps.fileorg.start();
  return t;
}

function writeTree(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
}

async function analyze(app: TestApp, name: string, files: Record<string, string>) {
  const source = join(app.dir, name);
  writeTree(source, files);
  const job = await app.deps.fileorg.analyze(
    { source_dir: source, output_dir: join(app.dir, "out") },
    { actor: "local" },
  );
  const done = await app.deps.fileorg.waitForJob(job.job_id, 30_000);
  expect(done.status).toBe("succeeded");
  return job.job_id;
}

async function queue(app: TestApp, jobId: string, query = ""): Promise<QueuePage> {
  const res = await app.app.request(`/api/jobs/${jobId}/review-queue${query}`, { headers: LOCAL });
  expect(res.status).toBe(200);
  return (await res.json()) as QueuePage;
}

async function allRows(app: TestApp, jobId: string) {
  return (await app.deps.fileorg.listRows(jobId, { limit: 1000 })).items;
}

const byName = <R extends { source_path: string }>(rows: R[], name: string): R | undefined =>
  rows.find((r) => r.source_path.endsWith(`/${name}`));

describe("review queue", () => {
  it("lists rows needing attention by priority — conflicts, then low confidence — with labelled reasons and a summary", async () => {
    const app = await started();
    const jobId = await analyze(app, "mixed", {
      "report.pdf": PDF,
      "notes.txt": "hello",
      "mystery.xyz": "???",
      "odd.qqq": "!!",
      "a/dup.txt": "one",
      "b/dup.txt": "two",
    });
    const page = await queue(app, jobId);
    const buckets = page.items.map((r) => r.review_bucket);
    expect(buckets).toEqual(["conflict", "conflict", "needs_review", "needs_review"]);
    expect(
      page.items
        .slice(2)
        .map((r) => r.source_path.split("/").at(-1))
        .sort(),
    ).toEqual(["mystery.xyz", "odd.qqq"]);
    const low = page.items[2];
    expect(low?.reasons).toContainEqual({
      code: "LOW_CONFIDENCE",
      label: expect.stringMatching(/confidence/),
    });
    expect(page.summary).toMatchObject({
      total: 6,
      needing_attention: 4,
      buckets: { conflict: 2, needs_review: 2, auto_safe: 2, blocked: 0 },
    });
    expect(page.summary.top_reasons.map((r) => r.code)).toContain("OPEN_CONFLICT");

    // Cursor pagination walks the same order, and the bucket and reason filters narrow it.
    const first = await queue(app, jobId, "?limit=3");
    expect(first.items).toHaveLength(3);
    const second = await queue(app, jobId, `?limit=3&cursor=${first.next_cursor}`);
    expect([...first.items, ...second.items].map((r) => r.row_id)).toEqual(page.items.map((r) => r.row_id));
    expect(second.next_cursor).toBeNull();
    expect(
      (await queue(app, jobId, "?bucket=auto_safe")).items.map((r) => r.source_path.split("/").at(-1)).sort(),
    ).toEqual(["notes.txt", "report.pdf"]);
    expect((await queue(app, jobId, "?reason=UNKNOWN_TYPE")).items).toHaveLength(2);
  });

  it("leaves applied rows out of the queue once the manifest is applied", async () => {
    const app = await started();
    const jobId = await analyze(app, "applied", { "mystery.xyz": "???", "notes.txt": "n" });
    expect((await queue(app, jobId)).items).toHaveLength(1);
    // The needs_review row moves only when named (a plain apply leaves it unreviewed).
    const apply = await app.deps.fileorg.apply(
      { job_id: jobId, buckets: ["auto_safe", "needs_review"] },
      { actor: "local" },
    );
    expect((await app.deps.fileorg.waitForJob(apply.job_id, 30_000)).status).toBe("succeeded");
    const after = await queue(app, jobId);
    expect(after.items).toEqual([]);
    expect(after.summary.buckets.needs_review).toBe(1);
  });

  it("answers 404 for an unknown job", async () => {
    const app = await started();
    const res = await app.app.request("/api/jobs/job_nope/review-queue", { headers: LOCAL });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("JOB_NOT_FOUND");
  });
});

describe("preferences in new analyze jobs", () => {
  it("use the runtime default naming template and the active strategy pack's confidence threshold", async () => {
    const app = await started();
    const saved = await app.app.request(
      "/api/preferences/runtime",
      post({ default_naming_template: "sorted/{category}/{name}{ext}", active_strategy_pack: "receipts" }),
    );
    expect(saved.status).toBe(200);
    // .txt is classified from its extension with confidence 0.8: safe under 0.7, to review under 0.85.
    const jobId = await analyze(app, "prefs", { "notes.txt": "n" });
    const [row] = await allRows(app, jobId);
    expect(row?.target_path).toBe(join(app.dir, "out", "sorted", "documents", "notes.txt"));
    expect(row?.review_bucket).toBe("needs_review");
    expect(row?.reason_codes).toContain("LOW_CONFIDENCE");
  });
});

describe("batch triage", () => {
  it("approves 100 rows in one call, atomically and audited, and returns the new summary", async () => {
    const app = await started();
    const files: Record<string, string> = {};
    for (let i = 0; i < 100; i++) files[`f${String(i).padStart(3, "0")}.zzz`] = `content ${i}`;
    const jobId = await analyze(app, "many", files);
    const before = await queue(app, jobId, "?limit=500");
    expect(before.items).toHaveLength(100);
    const res = await app.app.request(
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      post({ row_ids: before.items.map((r) => r.row_id), action: "approve" }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      applied_count: number;
      revision: number;
      summary: QueuePage["summary"];
    };
    expect(body.applied_count).toBe(100);
    expect(body.revision).toBe(1);
    expect(body.summary.buckets).toMatchObject({ auto_safe: 100, needs_review: 0 });
    const rows = await allRows(app, jobId);
    expect(rows.every((r) => r.review_bucket === "auto_safe" && r.reason_codes.includes("APPROVED"))).toBe(
      true,
    );
    const audit = await app.deps.fileorg.listAudit(jobId);
    expect(audit.items.filter((a) => a.action === "review.triage")).toHaveLength(100);
    expect(audit.items.some((a) => a.action === "review.batch_triage")).toBe(true);
  });

  it("skips and re-targets rows chosen by a filter, and refuses an unknown category with a field-level error", async () => {
    const app = await started();
    const jobId = await analyze(app, "filter", { "x1.zzz": "1", "x2.zzz": "2", "keep.txt": "k" });
    const moved = await app.app.request(
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      post({ filter: { q: ".zzz" }, action: "set_target", value: "sorted/unknown" }),
    );
    expect(((await moved.json()) as { applied_count: number }).applied_count).toBe(2);
    const rows = await allRows(app, jobId);
    expect(byName(rows, "x1.zzz")?.target_path).toBe(join(app.dir, "out", "sorted/unknown/x1.zzz"));
    await app.app.request(
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      post({ filter: { q: "keep" }, action: "skip" }),
    );
    expect(byName(await allRows(app, jobId), "keep.txt")?.action).toBe("skip");

    const bad = await app.app.request(
      `/api/jobs/${jobId}/review-queue/batch-triage`,
      post({ all: true, action: "set_category", value: "nope" }),
    );
    expect(bad.status).toBe(400);
    expect(
      ((await bad.json()) as { error: { details: { issues: Array<{ pointer: string }> } } }).error.details
        .issues[0]?.pointer,
    ).toBe("/value");
  });
});

describe("review rules", () => {
  it("previews a rule without saving anything, then applies exactly the previewed changes as one revision", async () => {
    const app = await started();
    const jobId = await analyze(app, "rules", {
      "scan-001.xyz": "a",
      "scan-002.xyz": "b",
      "photo.xyz": "c",
      "notes.txt": "d",
    });
    const rule = {
      name: "Scans are documents",
      conditions: { all: [{ field: "name_glob", glob: "scan-*" }] },
      actions: [{ type: "set_category", category: "documents" }, { type: "approve" }],
    };
    const saved = (await (await app.app.request("/api/preferences/review-rules", post(rule))).json()) as {
      id: string;
    };
    const before = await allRows(app, jobId);
    const preview = (await (
      await app.app.request(`/api/jobs/${jobId}/review-rules/preview`, post({ rule_id: saved.id }))
    ).json()) as {
      matched_count: number;
      matches: Array<{ row_id: string; changes: Record<string, { from: string; to: string }> }>;
      revision: number;
    };
    expect(preview.matched_count).toBe(2);
    expect(preview.revision).toBe(0);
    expect(await allRows(app, jobId)).toEqual(before);
    const scan = byName(before, "scan-001.xyz");
    const change = preview.matches.find((m) => m.row_id === scan?.row_id)?.changes;
    expect(change).toEqual({
      category: { from: "other", to: "documents" },
      target_path: { from: scan?.target_path, to: scan?.target_path.replace("/other/", "/documents/") },
      review_bucket: { from: "needs_review", to: "auto_safe" },
    });

    const applied = (await (
      await app.app.request(`/api/jobs/${jobId}/review-rules/apply`, post({ rule_id: saved.id }))
    ).json()) as typeof preview;
    expect(applied.revision).toBe(1);
    expect(applied.matches).toEqual(preview.matches);
    const after = await allRows(app, jobId);
    const changed = after
      .filter((r, i) => JSON.stringify(r) !== JSON.stringify(before[i]))
      .map((r) => r.row_id);
    expect(changed.sort()).toEqual(preview.matches.map((m) => m.row_id).sort());
    for (const m of preview.matches) {
      const row = after.find((r) => r.row_id === m.row_id);
      expect(row?.category).toBe(m.changes.category?.to);
      expect(row?.target_path).toBe(m.changes.target_path?.to);
      expect(row?.review_bucket).toBe(m.changes.review_bucket?.to);
    }
  });

  it("answers 404 for an unknown saved rule and 400 for a malformed inline one", async () => {
    const app = await started();
    const jobId = await analyze(app, "rules404", { "a.txt": "a" });
    const missing = await app.app.request(
      `/api/jobs/${jobId}/review-rules/preview`,
      post({ rule_id: "rule_nope" }),
    );
    expect(missing.status).toBe(404);
    const malformed = await app.app.request(
      `/api/jobs/${jobId}/review-rules/preview`,
      post({ rule: { name: "x", conditions: {}, actions: [] } }),
    );
    expect(malformed.status).toBe(400);
  });

  it("drafts a rule from 3 receipts that matches the 4th, and nothing else", async () => {
    const app = await started();
    const jobId = await analyze(app, "receipts", {
      "inbox/receipt-amazon-0142.pdf": PDF,
      "inbox/Receipt_grocery.pdf": PDF,
      "inbox/uber receipt 03.pdf": PDF,
      "inbox/receipt-hotel.pdf": PDF,
      "inbox/report-q3.pdf": PDF,
      "inbox/receipt-photo.jpg": "not really a jpeg",
      "other/receipt-old.pdf": PDF,
    });
    const rows = await allRows(app, jobId);
    const ids = ["receipt-amazon-0142.pdf", "Receipt_grocery.pdf", "uber receipt 03.pdf"].map(
      (n) => byName(rows, n)?.row_id,
    );
    const res = await app.app.request(
      `/api/jobs/${jobId}/review-rules/from-examples`,
      post({ row_ids: ids }),
    );
    expect(res.status).toBe(200);
    const draft = (await res.json()) as {
      draft: { conditions: { all: unknown[] }; actions: unknown[] };
      example_row_ids: string[];
      also_matches: string[];
      warnings: string[];
    };
    expect(draft.example_row_ids).toEqual(ids);
    expect(draft.also_matches).toEqual([byName(rows, "receipt-hotel.pdf")?.row_id]);
    expect(draft.draft.conditions.all).toContainEqual({ field: "name_glob", glob: "*receipt*" });
    expect(draft.draft.actions).toContainEqual({ type: "set_category", category: "documents" });
    expect(draft.warnings).toEqual([]);
    // Not saved.
    expect(await (await app.app.request("/api/preferences/review-rules", { headers: LOCAL })).json()).toEqual(
      { items: [], next_cursor: null },
    );
    const tooFew = await app.app.request(
      `/api/jobs/${jobId}/review-rules/from-examples`,
      post({ row_ids: [ids[0]] }),
    );
    expect(tooFew.status).toBe(400);
  });
});

describe("learned rules", () => {
  it("turns a person's corrections on one job into a suggestion on the next job, never applied silently", async () => {
    const app = await started();
    const first = await analyze(app, "job1", {
      "invoice-acme-01.pdf": pdf("1"),
      "invoice-globex-02.pdf": pdf("2"),
      "invoice-initech-03.pdf": pdf("3"),
      "holiday.txt": "x",
    });
    const rows1 = await allRows(app, first);
    const invoices = rows1.filter((r) => r.source_path.includes("invoice")).map((r) => r.row_id);
    const triage = await app.app.request(
      `/api/jobs/${first}/review-queue/batch-triage`,
      post({ row_ids: invoices, action: "set_target", value: "finance/invoices" }),
    );
    expect(triage.status).toBe(200);

    const learned = (await (
      await app.app.request("/api/preferences/learned-rules", { headers: LOCAL })
    ).json()) as {
      items: Array<{
        id: string;
        signal_kind: string;
        signal_value: string;
        outcome_field: string;
        outcome_value: string;
        count: number;
        suggests: boolean;
      }>;
    };
    expect(learned.items).toContainEqual(
      expect.objectContaining({
        signal_kind: "token",
        signal_value: "invoice",
        outcome_field: "target_dir",
        outcome_value: "finance/invoices",
        count: 3,
        suggests: true,
      }),
    );

    const second = await analyze(app, "job2", { "invoice-hooli-04.pdf": pdf("4"), "report.pdf": pdf("5") });
    const rows2 = await allRows(app, second);
    const invoice = byName(rows2, "invoice-hooli-04.pdf");
    // The plan is unchanged: the suggestion is only shown, and sends the row to review.
    expect(invoice?.target_path).toBe(
      join(app.dir, "out", "documents", String(new Date().getUTCFullYear()), "invoice-hooli-04.pdf"),
    );
    expect(invoice?.review_bucket).toBe("needs_review");
    expect(invoice?.reason_codes).toContain("LEARNED_DISAGREES");
    expect(byName(rows2, "report.pdf")?.review_bucket).toBe("auto_safe");
    const page = await queue(app, second);
    expect(page.items.map((r) => r.row_id)).toEqual([invoice?.row_id]);
    expect(page.items[0]?.suggestions).toEqual([
      expect.objectContaining({ field: "target_dir", value: "finance/invoices", agrees: false }),
    ]);

    // A person's single-row edit through the manifest API teaches too.
    const holiday = byName(rows1, "holiday.txt");
    const patched = await app.app.request(`/api/jobs/${first}/manifest/rows/${holiday?.row_id}`, {
      method: "PATCH",
      headers: { ...LOCAL, "Content-Type": "application/json" },
      body: JSON.stringify({ category: "ebooks" }),
    });
    expect(patched.status).toBe(200);
    const relearned = (await (
      await app.app.request("/api/preferences/learned-rules", { headers: LOCAL })
    ).json()) as typeof learned;
    expect(relearned.items).toContainEqual(
      expect.objectContaining({
        signal_kind: "token",
        signal_value: "holiday",
        outcome_field: "category",
        outcome_value: "ebooks",
        count: 1,
        suggests: false,
      }),
    );

    // Clearing one, then all.
    const one = learned.items[0]?.id ?? "";
    expect(
      (
        await app.app.request(`/api/preferences/learned-rules?id=${one}`, {
          method: "DELETE",
          headers: LOCAL,
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await app.app.request(`/api/preferences/learned-rules?id=${one}`, {
          method: "DELETE",
          headers: LOCAL,
        })
      ).status,
    ).toBe(404);
    expect(
      (await app.app.request("/api/preferences/learned-rules", { method: "DELETE", headers: LOCAL })).status,
    ).toBe(204);
    expect(
      await (await app.app.request("/api/preferences/learned-rules", { headers: LOCAL })).json(),
    ).toEqual({ items: [], next_cursor: null });
  });
});

describe("inbox analyze", () => {
  it("starts an analyze job over exactly the scanned batch, then refuses an empty inbox and a changed batch", async () => {
    const app = await started();
    const dir = join(app.dir, "inbox");
    mkdirSync(dir);
    const source = (await (
      await app.app.request(
        "/api/preferences/watch-sources",
        post({ name: "Inbox", path: dir, enabled: true, stability_ms: 150 }),
      )
    ).json()) as { id: string };
    await app.deps.inbox.start();
    writeFileSync(join(dir, "a.txt"), "a");
    writeFileSync(join(dir, "b.pdf"), PDF);
    await sleep(450);
    const scan = (await (await app.app.request("/api/inbox/scan", post({}))).json()) as {
      items: Array<{ batch_id: string; files: Array<{ path: string }> }>;
    };
    const batch = scan.items[0];
    expect(batch?.files).toHaveLength(2);
    // A file arriving after the scan is not part of the batch.
    const res = await app.app.request(
      "/api/inbox/analyze",
      post({ watch_source_id: source.id, batch_id: batch?.batch_id }),
    );
    expect(res.status).toBe(202);
    const job = (await res.json()) as { job_id: string; kind: string };
    expect(job.kind).toBe("analyze");
    await app.deps.fileorg.waitForJob(job.job_id, 30_000);
    expect((await allRows(app, job.job_id)).map((r) => r.source_path).sort()).toEqual(
      batch?.files.map((f) => f.path).sort(),
    );

    const empty = await app.app.request("/api/inbox/analyze", post({ watch_source_id: source.id }));
    expect(empty.status).toBe(409);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe("INBOX_EMPTY");

    writeFileSync(join(dir, "c.txt"), "c");
    await sleep(450);
    const next = (await (await app.app.request("/api/inbox/scan", post({}))).json()) as {
      items: Array<{ batch_id: string }>;
    };
    appendFileSync(join(dir, "c.txt"), "grown");
    await sleep(450);
    const changed = await app.app.request(
      "/api/inbox/analyze",
      post({ watch_source_id: source.id, batch_id: next.items[0]?.batch_id }),
    );
    expect(changed.status).toBe(409);
    expect(((await changed.json()) as { error: { code: string } }).error.code).toBe("BATCH_CHANGED");

    const unknown = await app.app.request("/api/inbox/analyze", post({ watch_source_id: "watch_nope" }));
    expect(unknown.status).toBe(404);
  });

  it("offers a batch again when its analyze job is cancelled", async () => {
    const app = await started();
    await app.deps.fileorg.stop(); // the job stays queued, so it can be cancelled before it runs
    const dir = join(app.dir, "inbox2");
    mkdirSync(dir);
    const source = (await (
      await app.app.request(
        "/api/preferences/watch-sources",
        post({ name: "Inbox 2", path: dir, enabled: true, stability_ms: 100 }),
      )
    ).json()) as { id: string };
    writeFileSync(join(dir, "a.txt"), "a");
    await app.app.request("/api/inbox/scan", post({}));
    await sleep(300);
    const res = await app.app.request("/api/inbox/analyze", post({ watch_source_id: source.id }));
    expect(res.status).toBe(202);
    const job = (await res.json()) as { job_id: string };
    const empty = (await (await app.app.request("/api/inbox/scan", post({}))).json()) as {
      items: Array<{ files: unknown[] }>;
    };
    expect(empty.items[0]?.files).toEqual([]);
    await app.deps.fileorg.cancel(job.job_id, { actor: "local" });
    await sleep(100);
    const again = (await (await app.app.request("/api/inbox/scan", post({}))).json()) as {
      items: Array<{ files: unknown[] }>;
    };
    expect(again.items[0]?.files).toHaveLength(1);
  });
});
