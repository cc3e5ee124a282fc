import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

/**
 * What a person saves is what happens: runtime settings, strategy packs and saved rules act on every new
 * analyze, over HTTP with real files.
 */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const PDF = "%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
const pdf = (tag: string) => `${PDF}% ${tag}\n`;
const send = (method: string, body: unknown, headers: Record<string, string> = {}) => ({
  method,
  headers: { ...LOCAL, "Content-Type": "application/json", ...headers },
  body: JSON.stringify(body),
});
const post = (body: unknown) => send("POST", body);

interface Row {
  row_id: string;
  source_path: string;
  target_path: string;
  category: string;
  action: string;
  review_bucket: string;
  reason_codes: string[];
  edited: boolean;
  error: { code: string; message: string } | null;
  applied_rules: Array<{ rule_id: string; name: string; source: string; pack_id?: string }>;
}
interface JobBody {
  job_id: string;
  status: string;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  params: Record<string, unknown>;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

async function app(): Promise<TestApp> {
  t = await createTestApp();
  return t;
}

function writeTree(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
}

async function request<T>(a: TestApp, path: string, init: RequestInit = { headers: LOCAL }) {
  const res = await a.app.request(path, init);
  return { status: res.status, body: (await res.json()) as T };
}

/** Analyzes `files` written under `name` over HTTP; answers the finished job. */
async function analyze(a: TestApp, name: string, files: Record<string, string>): Promise<JobBody> {
  const source = join(a.dir, name);
  writeTree(source, files);
  const started = await request<JobBody>(
    a,
    "/api/jobs/analyze",
    post({ source_dir: source, output_dir: join(a.dir, "out") }),
  );
  expect(started.status).toBe(202);
  await a.deps.fileorg.waitForJob(started.body.job_id, 30_000);
  return (await request<JobBody>(a, `/api/jobs/${started.body.job_id}`)).body;
}

async function rowsOf(a: TestApp, jobId: string): Promise<Row[]> {
  const page = await request<{ items: Row[] }>(a, `/api/jobs/${jobId}/manifest?limit=500`);
  expect(page.status).toBe(200);
  return page.body.items;
}

const byName = (rows: Row[], name: string) => rows.find((r) => r.source_path.endsWith(`/${name}`));

async function saveRuntime(a: TestApp, settings: Record<string, unknown>) {
  const saved = await request<unknown>(a, "/api/preferences/runtime", post(settings));
  expect(saved.status).toBe(200);
}

describe("strategy packs at analyze", () => {
  it("retargets invoices and receipts by itself when the receipts pack is active, and says which rule did", async () => {
    const a = await app();
    await saveRuntime(a, { active_strategy_pack: "receipts" });
    const job = await analyze(a, "inbox", {
      "invoice-2024-03.pdf": pdf("invoice"),
      "Receipt_coffee.pdf": pdf("receipt"),
      "notes.txt": "hello",
    });
    expect(job.status).toBe("succeeded");
    expect(job.params.strategy_pack_id).toBe("receipts");
    const rows = await rowsOf(a, job.job_id);
    const invoice = byName(rows, "invoice-2024-03.pdf");
    expect(invoice?.target_path).toMatch(
      new RegExp(`^${join(a.dir, "out", "receipts")}/\\d{4}/\\d{2}/invoice-2024-03\\.pdf$`),
    );
    expect(invoice?.category).toBe("documents");
    expect(invoice?.applied_rules).toEqual([
      {
        rule_id: "pack_receipts_named",
        name: "Receipts and invoices by name",
        source: "strategy_pack",
        pack_id: "receipts",
      },
    ]);
    expect(invoice?.reason_codes).toContain("PACK_RULE");
    expect(byName(rows, "Receipt_coffee.pdf")?.target_path).toContain("/out/receipts/");
    // The pack's naming template applies to the rest: {category}/{yyyy}/{mm}/{name}{ext}.
    const notes = byName(rows, "notes.txt");
    expect(notes?.target_path).toMatch(/\/out\/documents\/\d{4}\/\d{2}\/notes\.txt$/);
    expect(notes?.applied_rules).toEqual([]);
  });

  it("skips unfinished downloads with the downloads clean-up pack, without sending them to review", async () => {
    const a = await app();
    const job = await analyze(a, "downloads", {
      "movie.mkv.part": "partial",
      "setup.crdownload": "x",
      "a.txt": "a",
    });
    const rows = await rowsOf(a, job.job_id);
    for (const name of ["movie.mkv.part", "setup.crdownload"]) {
      const row = byName(rows, name);
      expect(row?.action).toBe("skip");
      expect(row?.applied_rules.map((r) => r.rule_id)).toEqual(["pack_downloads_partial"]);
      expect(row?.reason_codes).toEqual(expect.arrayContaining(["PACK_RULE", "SKIP_CHOSEN"]));
      expect(row?.review_bucket).toBe("auto_safe");
    }
    expect(byName(rows, "a.txt")?.action).toBe("move");
  });
});

describe("saved review rules at analyze", () => {
  it("runs a saved rule on the next analyze, after the pack's rules, and records it on the row", async () => {
    const a = await app();
    const rule = await request<{ id: string }>(
      a,
      "/api/preferences/review-rules",
      post({
        name: "Scans to archive",
        priority: 5,
        conditions: { all: [{ field: "name_glob", glob: "scan-*" }] },
        actions: [{ type: "set_target", template: "archive/{yyyy}/{name}{ext}" }],
      }),
    );
    expect(rule.status).toBe(200);
    const job = await analyze(a, "scans", { "scan-001.pdf": pdf("1"), "other.pdf": pdf("2") });
    const rows = await rowsOf(a, job.job_id);
    const scan = byName(rows, "scan-001.pdf");
    expect(scan?.target_path).toMatch(new RegExp(`^${join(a.dir, "out", "archive")}/\\d{4}/scan-001\\.pdf$`));
    expect(scan?.applied_rules).toEqual([
      { rule_id: rule.body.id, name: "Scans to archive", source: "saved_rule" },
    ]);
    expect(scan?.reason_codes).toContain("SAVED_RULE");
    // A rule's change is not a person's edit.
    expect(scan?.edited).toBe(false);
    expect(byName(rows, "other.pdf")?.applied_rules).toEqual([]);
  });

  it("leaves rows auto_safe when a rule sets their target and approves them — at analyze and applied by hand", async () => {
    const a = await app();
    const rule = {
      name: "Mystery files to inbox",
      conditions: { all: [{ field: "extension", in: [".xyz"] }] },
      actions: [{ type: "set_target", template: "inbox/{name}{ext}" }, { type: "approve" }],
    };
    // Applied by hand to a manifest analyzed before the rule existed: its rows were in needs_review.
    const before = await analyze(a, "first", { "a.xyz": "a", "b.xyz": "b" });
    expect((await rowsOf(a, before.job_id)).map((r) => r.review_bucket)).toEqual([
      "needs_review",
      "needs_review",
    ]);
    const applied = await request<{ matched_count: number }>(
      a,
      `/api/jobs/${before.job_id}/review-rules/apply`,
      post({ rule }),
    );
    expect(applied.status).toBe(200);
    for (const row of await rowsOf(a, before.job_id)) {
      expect(row.target_path).toBe(join(a.dir, "out", "inbox", row.source_path.split("/").at(-1) ?? ""));
      expect(row.review_bucket).toBe("auto_safe");
      expect(row.edited).toBe(false);
      expect(row.reason_codes).toContain("APPROVED");
    }
    // Saved, it acts by itself on the next analyze.
    expect((await request(a, "/api/preferences/review-rules", post(rule))).status).toBe(200);
    const next = await analyze(a, "second", { "c.xyz": "c", "d.xyz": "d" });
    for (const row of await rowsOf(a, next.job_id)) {
      expect(row.target_path).toBe(join(a.dir, "out", "inbox", row.source_path.split("/").at(-1) ?? ""));
      expect(row.review_bucket).toBe("auto_safe");
      expect(row.reason_codes).toEqual(expect.arrayContaining(["APPROVED", "SAVED_RULE"]));
    }
  });
});

describe("edits that are not a person's", () => {
  it("keeps an approved row approved after a rule or a conflict resolution; only a person's PATCH marks EDITED", async () => {
    const a = await app();
    const job = await analyze(a, "approved", { "x/same.xyz": "one", "y/same.xyz": "two", "solo.xyz": "s" });
    let rows = await rowsOf(a, job.job_id);
    const ids = rows.map((r) => r.row_id);
    const triage = await request<{ applied_count: number }>(
      a,
      `/api/jobs/${job.job_id}/review-queue/batch-triage`,
      post({ row_ids: ids, action: "approve" }),
    );
    expect(triage.status).toBe(200);
    // A rule retargets the lone row: it stays approved.
    await request(
      a,
      `/api/jobs/${job.job_id}/review-rules/apply`,
      post({
        rule: {
          name: "solo",
          conditions: { all: [{ field: "name_glob", glob: "solo*" }] },
          actions: [{ type: "set_target", template: "solo/{name}{ext}" }],
        },
      }),
    );
    const solo = byName(await rowsOf(a, job.job_id), "solo.xyz");
    expect(solo).toMatchObject({ review_bucket: "auto_safe", edited: false });
    expect(solo?.target_path).toBe(join(a.dir, "out", "solo", "solo.xyz"));
    // The two same-named files collide; a rename resolution leaves both approved and unedited.
    const conflicts = await request<{ items: Array<{ conflict_id: string; kind: string }> }>(
      a,
      `/api/jobs/${job.job_id}/manifest/conflicts?status=open`,
    );
    const target = conflicts.body.items.find((c) => c.kind === "duplicate_target");
    expect(target).toBeDefined();
    const resolved = await request(
      a,
      `/api/jobs/${job.job_id}/manifest/conflicts/resolve`,
      post({ resolutions: [{ conflict_id: target?.conflict_id, strategy: "rename" }] }),
    );
    expect(resolved.status).toBe(200);
    rows = await rowsOf(a, job.job_id);
    for (const name of ["same.xyz", "same (2).xyz"]) {
      const row = rows.find((r) => r.target_path.endsWith(`/${name}`));
      expect(row).toMatchObject({ review_bucket: "auto_safe", edited: false });
      expect(row?.reason_codes).toContain("APPROVED");
    }
    // A person's PATCH of the category is an edit: EDITED, approval withdrawn.
    const patched = await request<Row>(
      a,
      `/api/jobs/${job.job_id}/manifest/rows/${solo?.row_id}`,
      send("PATCH", { category: "documents" }),
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ edited: true, review_bucket: "needs_review" });
    expect(patched.body.reason_codes).toContain("EDITED");
  });
});

describe("runtime limits", () => {
  it("stops a 36-file analyze with max_files_per_job 5, naming the limit", async () => {
    const a = await app();
    await saveRuntime(a, { limits: { max_files_per_job: 5 } });
    const files = Object.fromEntries(Array.from({ length: 36 }, (_, i) => [`f${i}.txt`, `file ${i}`]));
    const job = await analyze(a, "many", files);
    expect(job.status).toBe("failed");
    expect(job.error?.code).toBe("JOB_LIMIT_EXCEEDED");
    expect(job.error?.details).toMatchObject({ limit: "max_files_per_job", value: 5 });
    expect(job.error?.message).toContain("max_files_per_job");
    // Nothing of the stopped analyze is left as a manifest.
    expect((await rowsOf(a, job.job_id)).length).toBe(0);
  });

  it("stops an analyze over max_total_bytes, naming the limit", async () => {
    const a = await app();
    await saveRuntime(a, { limits: { max_total_bytes: 2000 } });
    const job = await analyze(a, "heavy", { "a.txt": "a".repeat(1500), "b.txt": "b".repeat(1500) });
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({
      code: "JOB_LIMIT_EXCEEDED",
      details: { limit: "max_total_bytes", value: 2000 },
    });
  });

  it("blocks a file over max_file_bytes with FILE_TOO_LARGE and files the rest", async () => {
    const a = await app();
    await saveRuntime(a, { limits: { max_file_bytes: 1024 }, workers: 2 });
    const job = await analyze(a, "sizes", { "big.txt": "x".repeat(5000), "small.txt": "y" });
    expect(job.status).toBe("succeeded");
    expect(job.params).toMatchObject({ workers: 2, limits: { max_file_bytes: 1024 } });
    const rows = await rowsOf(a, job.job_id);
    expect(byName(rows, "big.txt")).toMatchObject({
      review_bucket: "blocked",
      action: "skip",
      error: { code: "FILE_TOO_LARGE" },
    });
    expect(byName(rows, "big.txt")?.reason_codes).toContain("FILE_TOO_LARGE");
    expect(byName(rows, "small.txt")).toMatchObject({
      review_bucket: "auto_safe",
      action: "move",
      error: null,
    });
  });
});

describe("allowed roots", () => {
  it("narrows the environment's roots for new analyzes, shows the effective roots, and refuses to widen them", async () => {
    const a = await app();
    const inside = join(a.dir, "inside");
    const outside = join(a.dir, "outside");
    writeTree(inside, { "a.txt": "a" });
    writeTree(outside, { "b.txt": "b" });
    const before = await request<{ effective_roots: string[] }>(a, "/api/preferences/runtime");
    expect(before.body.effective_roots).toEqual([a.dir]);
    await saveRuntime(a, { allowed_roots: [inside] });
    const view = await request<{ allowed_roots: string[]; effective_roots: string[] }>(
      a,
      "/api/preferences/runtime",
    );
    expect(view.body.effective_roots).toEqual([inside]);

    const refused = await request<ErrorBody>(
      a,
      "/api/jobs/analyze",
      post({ source_dir: outside, output_dir: join(inside, "out") }),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("PATH_OUTSIDE_ROOT");
    const outputOutside = await request<ErrorBody>(
      a,
      "/api/jobs/analyze",
      post({ source_dir: inside, output_dir: join(outside, "out") }),
    );
    expect(outputOutside.status).toBe(403);
    const ok = await request<JobBody>(
      a,
      "/api/jobs/analyze",
      post({ source_dir: inside, output_dir: join(inside, "out") }),
    );
    expect(ok.status).toBe(202);

    // A root outside the environment's would widen them: refused on save, reported by validate.
    const widen = await request<ErrorBody>(a, "/api/preferences/runtime", post({ allowed_roots: ["/usr"] }));
    expect(widen.status).toBe(403);
    expect(widen.body.error.code).toBe("PATH_OUTSIDE_ROOT");
    const checked = await request<{ problems: Array<{ pointer: string; code: string }> }>(
      a,
      "/api/preferences/runtime/validate",
      post({ allowed_roots: ["/usr"] }),
    );
    expect(checked.body.problems).toContainEqual(
      expect.objectContaining({ pointer: "/allowed_roots/0", code: "OUTSIDE_ENVIRONMENT_ROOTS" }),
    );
  });

  it("validates every problem at once: malformed fields do not hide the others", async () => {
    const a = await app();
    const res = await request<{ ok: boolean; problems: Array<{ pointer: string; code: string }> }>(
      a,
      "/api/preferences/runtime/validate",
      post({
        workers: "many",
        allowed_roots: [join(a.dir, "missing")],
        limits: { max_file_bytes: 10 },
        default_naming_template: "{nope}",
        colour: "blue",
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    expect(res.body.problems.map((p) => `${p.pointer} ${p.code}`).sort()).toEqual([
      "/allowed_roots/0 NOT_FOUND",
      "/colour INVALID",
      "/default_naming_template INVALID",
      "/limits/max_file_bytes LIMIT_TOO_SMALL",
      "/workers INVALID",
    ]);
  });
});

describe("custom categories", () => {
  it("round-trips a custom category through preferences, triage, rules, PATCH and learning", async () => {
    const a = await app();
    const created = await request<{ name: string; built_in: boolean }>(
      a,
      "/api/preferences/categories",
      post({ name: "tax-2025", target_template: "taxes/2025/{name}{ext}" }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "tax-2025", built_in: false });
    expect(
      (await request<ErrorBody>(a, "/api/preferences/categories", post({ name: "tax-2025" }))).body.error
        .code,
    ).toBe("CATEGORY_EXISTS");
    expect(
      (await request<ErrorBody>(a, "/api/preferences/categories", post({ name: "images" }))).body.error.code,
    ).toBe("CATEGORY_BUILT_IN");
    const listed = await request<{ items: Array<{ name: string; built_in: boolean }> }>(
      a,
      "/api/preferences/categories",
    );
    expect(listed.body.items.at(-1)).toMatchObject({ name: "tax-2025", built_in: false });
    expect(listed.body.items.filter((c) => c.built_in).map((c) => c.name)).toContain("documents");

    const job = await analyze(a, "papers", {
      "taxform-a.pdf": pdf("a"),
      "taxform-b.pdf": pdf("b"),
      "taxform-c.pdf": pdf("c"),
      "letter.pdf": pdf("d"),
    });
    const rows = await rowsOf(a, job.job_id);
    // Triage into it: the target follows the category's own template.
    const triaged = await request(
      a,
      `/api/jobs/${job.job_id}/review-queue/batch-triage`,
      post({ row_ids: [byName(rows, "taxform-a.pdf")?.row_id], action: "set_category", value: "tax-2025" }),
    );
    expect(triaged.status).toBe(200);
    const afterTriage = byName(await rowsOf(a, job.job_id), "taxform-a.pdf");
    expect(afterTriage).toMatchObject({
      category: "tax-2025",
      target_path: join(a.dir, "out", "taxes", "2025", "taxform-a.pdf"),
    });
    // A person's PATCH into it.
    const patched = await request<Row>(
      a,
      `/api/jobs/${job.job_id}/manifest/rows/${byName(rows, "taxform-b.pdf")?.row_id}`,
      send("PATCH", { category: "tax-2025" }),
    );
    expect(patched.status).toBe(200);
    expect(patched.body.category).toBe("tax-2025");
    const patched2 = await request<Row>(
      a,
      `/api/jobs/${job.job_id}/manifest/rows/${byName(rows, "taxform-c.pdf")?.row_id}`,
      send("PATCH", { category: "tax-2025" }),
    );
    expect(patched2.status).toBe(200);
    // A saved rule setting it.
    const rule = await request(
      a,
      "/api/preferences/review-rules",
      post({
        name: "Letters are taxes",
        conditions: { all: [{ field: "name_glob", glob: "letter*" }] },
        actions: [{ type: "set_category", category: "tax-2025" }],
      }),
    );
    expect(rule.status).toBe(200);
    // Applied by hand, it files the letter under the category's own template too.
    const byHand = await request(
      a,
      `/api/jobs/${job.job_id}/review-rules/apply`,
      post({ rule_id: (rule.body as { id: string }).id }),
    );
    expect(byHand.status).toBe(200);
    expect(byName(await rowsOf(a, job.job_id), "letter.pdf")).toMatchObject({
      category: "tax-2025",
      target_path: join(a.dir, "out", "taxes", "2025", "letter.pdf"),
      edited: false,
    });

    // Unknown categories are refused everywhere with the known ones named.
    const unknownPatch = await request<ErrorBody>(
      a,
      `/api/jobs/${job.job_id}/manifest/rows/${byName(rows, "letter.pdf")?.row_id}`,
      send("PATCH", { category: "tax-2026" }),
    );
    expect(unknownPatch.status).toBe(400);
    expect(unknownPatch.body.error.code).toBe("CATEGORY_UNKNOWN");
    expect(unknownPatch.body.error.message).toContain("tax-2025");
    expect(unknownPatch.body.error.details?.known).toEqual(expect.arrayContaining(["documents", "tax-2025"]));
    const unknownRule = await request<ErrorBody>(
      a,
      "/api/preferences/review-rules",
      post({
        name: "Nope",
        conditions: { all: [{ field: "name_glob", glob: "x*" }] },
        actions: [{ type: "set_category", category: "tax-2026" }],
      }),
    );
    expect(unknownRule.status).toBe(400);
    expect(unknownRule.body.error.code).toBe("CATEGORY_UNKNOWN");
    const unknownTriage = await request<ErrorBody>(
      a,
      `/api/jobs/${job.job_id}/review-queue/batch-triage`,
      post({ row_ids: [byName(rows, "letter.pdf")?.row_id], action: "set_category", value: "tax-2026" }),
    );
    expect(unknownTriage.status).toBe(400);
    expect(unknownTriage.body.error.code).toBe("CATEGORY_UNKNOWN");

    // The next analyze: the saved rule files letters under it, learning suggests it for tax forms.
    const next = await analyze(a, "papers-2", { "letter-2.pdf": pdf("e"), "taxform-d.pdf": pdf("f") });
    const nextRows = await rowsOf(a, next.job_id);
    expect(byName(nextRows, "letter-2.pdf")).toMatchObject({
      category: "tax-2025",
      target_path: join(a.dir, "out", "taxes", "2025", "letter-2.pdf"),
    });
    const queue = await request<{
      items: Array<{ source_path: string; suggestions: Array<{ field: string; value: string }> }>;
    }>(a, `/api/jobs/${next.job_id}/review-queue?bucket=needs_review`);
    const taxform = queue.body.items.find((r) => r.source_path.endsWith("/taxform-d.pdf"));
    expect(taxform?.suggestions).toContainEqual(
      expect.objectContaining({ field: "category", value: "tax-2025" }),
    );
    const learned = await request<{ items: Array<{ outcome: { value: string } }> }>(
      a,
      "/api/preferences/learned-rules",
    );
    expect(JSON.stringify(learned.body)).toContain("tax-2025");

    // Deleting it: rows keep it; it is no longer accepted.
    const deleted = await a.app.request("/api/preferences/categories?name=tax-2025", {
      method: "DELETE",
      headers: LOCAL,
    });
    expect(deleted.status).toBe(204);
    const gone = await a.app.request("/api/preferences/categories?name=tax-2025", {
      method: "DELETE",
      headers: LOCAL,
    });
    expect(gone.status).toBe(404);
    expect(byName(await rowsOf(a, next.job_id), "letter-2.pdf")?.category).toBe("tax-2025");
  });
});
