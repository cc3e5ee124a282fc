import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Job, MAX_RULES_FILE_CHARS, type ManifestPage, RulesFileOutcome } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../tests/api-client.js";
import { type Loopback, serveOnLoopback } from "../tests/loopback.js";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  await t?.close();
  server = undefined;
  t = undefined;
});

const RULES = `version: 1
rules:
  - name: Scans are documents
    filters:
      name: "scan-*.dat"
    actions:
      category: documents
      target: "scans/{name}{ext}"
  - name: Keep notes where they are
    filters:
      extension: txt
    actions:
      skip: true
`;

const BAD = `version: 1
rules:
  - name: Scans are documents
    filters:
      size: { min: 10, max: 5 }
    actions:
      category: documents
  - name: Move old
    filters:
      name: "*.dat"
    actions:
      move: archive
`;

/** A server on loopback over an analyzed folder: three scans and a note. */
async function started() {
  t = await createTestApp();
  const app = t.app;
  server = await serveOnLoopback((request) => app.fetch(request));
  const api = apiClient(server.url);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    api.post(path, body, { ...LOCAL, ...headers });
  const get = (path: string) => api.call("GET", path, undefined, LOCAL);
  const src = join(t.dir, "src");
  mkdirSync(src, { recursive: true });
  for (const n of [1, 2, 3]) writeFileSync(join(src, `scan-00${n}.dat`), `scan ${n}`);
  writeFileSync(join(src, "notes.txt"), "hello");
  const queued = await post("/api/jobs/analyze", { source_dir: src, output_dir: join(t.dir, "out") });
  expect(queued.status, JSON.stringify(queued.json)).toBeLessThan(300);
  const jobId = Job.parse(queued.json).job_id;
  for (let i = 0; i < 400; i++) {
    const job = Job.parse((await get(`/api/jobs/${jobId}`)).json);
    if (job.status === "succeeded") break;
    expect(["queued", "running"]).toContain(job.status);
    await new Promise((r) => setTimeout(r, 25));
  }
  const rows = async () =>
    Object.fromEntries(
      ((await get(`/api/jobs/${jobId}/manifest?limit=500`)).json as ManifestPage).items.map((r) => [
        r.source_path.slice(src.length + 1),
        { category: r.category, action: r.action, target: r.target_path },
      ]),
    );
  return { post, get, jobId, rows, src };
}

describe("rules files over HTTP: simulate and run on a job's plan", () => {
  it("simulates (per-rule counts, example rows, nothing written), then runs as one revision; a stale If-Match is 412", async () => {
    const s = await started();
    const before = await s.rows();
    const sim = await s.post(`/api/jobs/${s.jobId}/rules-file/simulate`, { text: RULES });
    expect(sim.status, JSON.stringify(sim.json)).toBe(200);
    const simulated = RulesFileOutcome.parse(sim.json);
    expect(simulated.applied).toBe(false);
    expect(simulated.rules.map((r) => [r.name, r.matched, r.changed])).toEqual([
      ["Scans are documents", 3, 3],
      ["Keep notes where they are", 1, 1],
    ]);
    expect(simulated.rules[0]?.examples[0]?.changes.category).toEqual({ from: "other", to: "documents" });
    expect(await s.rows()).toEqual(before);

    const run = await s.post(`/api/jobs/${s.jobId}/rules-file/run`, { text: RULES });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    const outcome = RulesFileOutcome.parse(run.json);
    expect(outcome).toMatchObject({ applied: true, changed_count: 4, revision: simulated.revision + 1 });
    expect(run.headers.get("etag")).toBe(`"${outcome.revision}"`);
    const after = await s.rows();
    expect(after["scan-001.dat"]).toMatchObject({ category: "documents" });
    expect(after["scan-001.dat"]?.target).toMatch(/\/out\/scans\/scan-001\.dat$/);
    expect(after["notes.txt"]).toMatchObject({ action: "skip" });

    // Based on the revision before the run: refused, and nothing changes.
    const other = RULES.replace("category: documents", "category: archives");
    const stale = await s.post(
      `/api/jobs/${s.jobId}/rules-file/run`,
      { text: other },
      { "If-Match": `"${simulated.revision}"` },
    );
    expect([stale.status, stale.code]).toEqual([412, "REVISION_MISMATCH"]);
    expect(await s.rows()).toEqual(after);
    const fresh = await s.post(
      `/api/jobs/${s.jobId}/rules-file/run`,
      { text: other },
      { "If-Match": `"${outcome.revision}"` },
    );
    expect(fresh.status, JSON.stringify(fresh.json)).toBe(200);
    expect((await s.rows())["scan-001.dat"]).toMatchObject({ category: "archives" });
  });

  it("answers a bad file with its stable code and every problem (rule, field, line, column), writing nothing", async () => {
    const s = await started();
    const before = await s.rows();
    for (const verb of ["simulate", "run"]) {
      const bad = await s.post(`/api/jobs/${s.jobId}/rules-file/${verb}`, { text: BAD });
      expect([bad.status, bad.code]).toEqual([400, "RULES_FILE_INVALID"]);
      const { issues } = (bad.json as { error: { details: { issues: unknown[] } } }).error.details;
      expect(issues).toEqual([
        expect.objectContaining({
          rule: "Scans are documents",
          field: "filters.size.min",
          line: 5,
          column: 20,
        }),
        expect.objectContaining({ rule: "Move old", field: "actions.move", line: 12, column: 7 }),
      ]);
    }
    const syntax = await s.post(`/api/jobs/${s.jobId}/rules-file/run`, { text: "version: 1\nrules: [\n" });
    expect([syntax.status, syntax.code]).toEqual([400, "RULES_FILE_SYNTAX"]);
    expect(
      (syntax.json as { error: { details: { issues: Array<{ line?: number }> } } }).error.details.issues[0]
        ?.line,
    ).toBeGreaterThan(0);
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 8; i++)
      laughs.push(
        `${"b".repeat(i)}: &${"b".repeat(i)} [${Array(10)
          .fill(`*${i === 1 ? "a" : "b".repeat(i - 1)}`)
          .join(", ")}]`,
      );
    const bomb = await s.post(`/api/jobs/${s.jobId}/rules-file/simulate`, { text: laughs.join("\n") });
    expect([bomb.status, bomb.code]).toEqual([400, "RULES_FILE_SYNTAX"]);
    expect(JSON.stringify(bomb.json)).toContain("Excessive alias count");
    expect(await s.rows()).toEqual(before);

    const unknown = await s.post("/api/jobs/job_nope/rules-file/simulate", { text: RULES });
    expect([unknown.status, unknown.code]).toEqual([404, "JOB_NOT_FOUND"]);
    for (const body of [
      {},
      { text: "" },
      { text: RULES, extra: 1 },
      { text: "#".repeat(MAX_RULES_FILE_CHARS + 1) },
    ]) {
      const refused = await s.post(`/api/jobs/${s.jobId}/rules-file/run`, body);
      expect([refused.status, refused.code]).toEqual([400, "VALIDATION_FAILED"]);
    }
    expect(await s.rows()).toEqual(before);
  });

  it("exports the saved review rules as a rules file that simulates as they would apply", async () => {
    const s = await started();
    const save = (rule: unknown) => s.post("/api/preferences/review-rules", rule);
    expect(
      (
        await save({
          name: "Scans",
          priority: 5,
          conditions: { all: [{ field: "name_glob", glob: "scan-*" }] },
          actions: [{ type: "set_category", category: "documents" }],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await save({
          name: "Loud scans",
          conditions: { all: [{ field: "name_regex", regex: "^SCAN", flags: "i" }] },
          actions: [{ type: "skip" }],
        })
      ).status,
    ).toBe(200);
    const exported = await s.get("/api/preferences/review-rules/export");
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toMatch(/^application\/yaml/);
    const text = String(exported.json);
    expect(text).toContain('#   "Loud scans": name_regex with flags "i"');
    const sim = await s.post(`/api/jobs/${s.jobId}/rules-file/simulate`, { text });
    expect(sim.status, JSON.stringify(sim.json)).toBe(200);
    expect(RulesFileOutcome.parse(sim.json).rules.map((r) => [r.name, r.matched])).toEqual([["Scans", 3]]);
  });

  it("exports saved rules that carry a location into location blocks, which simulate only inside them", async () => {
    const s = await started();
    const save = (rule: unknown) => s.post("/api/preferences/review-rules", rule);
    const saved = [
      {
        name: "Copy scans",
        priority: 9,
        location: s.src,
        conditions: { all: [{ field: "name_glob", glob: "scan-*" }] },
        actions: [{ type: "copy" }],
      },
      {
        name: "Nowhere",
        priority: 8,
        location: join(s.src, "nowhere"),
        conditions: { all: [{ field: "extension", in: ["txt"] }] },
        actions: [{ type: "skip" }],
      },
      {
        name: "Notes",
        conditions: { all: [{ field: "extension", in: ["txt"] }] },
        actions: [{ type: "skip" }],
      },
    ];
    for (const rule of saved) expect((await save(rule)).status).toBe(200);
    const text = String((await s.get("/api/preferences/review-rules/export")).json);
    expect(text).toContain("locations:");
    expect(text).toContain(`- path: ${s.src}\n`);
    const sim = await s.post(`/api/jobs/${s.jobId}/rules-file/simulate`, { text });
    expect(sim.status, JSON.stringify(sim.json)).toBe(200);
    const rules = RulesFileOutcome.parse(sim.json).rules;
    expect(rules.map((r) => [r.name, r.location, r.matched])).toEqual([
      ["Copy scans", s.src, 3],
      ["Nowhere", join(s.src, "nowhere"), 0],
      ["Notes", undefined, 1],
    ]);
    const lines = text.split("\n");
    for (const r of rules) expect(lines[(r.line ?? 0) - 1]).toContain(`name: ${r.name}`);
  });
});
