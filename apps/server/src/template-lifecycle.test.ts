import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Run, Template, TemplateHistory } from "@vetted/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

/* The template lifecycle over HTTP on a real server process: promote → fork → mark-recommended → history →
 * export → import, and the typed params (enum, regex, email) checked when a run starts. */

let dir: string;
let server: ServerProcess;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-tpl-life-"));
  server = await startServerProcess({ VETTED_DATA_DIR: dir, VETTED_RUNS_POLL_MS: "50" }, 60_000);
  api = apiClient(server.url);
}, 90_000);

afterAll(async () => {
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const STEPS = [
  {
    id: "greet",
    type: "set",
    vars: { who: "${params.contact}", at: "${params.region}", key: "${params.api_key}" },
  },
  { id: "check", type: "assert", value: "${params.sku}", matches: "^[A-Z]" },
];

const PARAMS_SCHEMA = [
  { key: "region", type: "enum", enum_values: ["eu", "us"], required: true },
  { key: "sku", type: "regex", pattern: "^[A-Z][0-9]{2}$", required: true },
  { key: "contact", type: "email", required: true },
  { key: "api_key", type: "string" },
  { key: "token", type: "secret" },
];

async function flowOf(steps: unknown[] = STEPS): Promise<string> {
  const flow = await api.post("/api/flows", { name: "typed", steps });
  expect(flow.status, JSON.stringify(flow.json)).toBe(201);
  return (flow.json as { id: string }).id;
}

async function typedTemplate(): Promise<Template> {
  const res = await api.post("/api/templates", {
    name: "typed",
    flow_id: await flowOf(),
    params_schema: PARAMS_SCHEMA,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as Template;
}

const GOOD = {
  region: "eu",
  sku: "A12",
  contact: "ops@example.com",
  api_key: "k-live-123",
  token: "s3cret-token",
};

async function finished(runId: string): Promise<Run> {
  return api.waitForRun(runId, (r) => ["success", "failed", "cancelled"].includes(r.status), 30_000);
}

describe("typed template params", { timeout: 60_000 }, () => {
  it("refuses a run whose enum, regex or email param is wrong, naming each, with a 422", async () => {
    const tpl = await typedTemplate();
    const res = await api.post("/api/runs", {
      template_id: tpl.id,
      params: { region: "asia", sku: "a1", contact: "not-an-email" },
    });
    expect(res.status).toBe(422);
    expect(res.code).toBe("PARAMS_INVALID");
    const issues = (res.json as { error: { details: { issues: Array<{ key: string; message: string }> } } })
      .error.details.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { key: "region", message: "must be one of: eu, us" },
        { key: "sku", message: "must match the pattern ^[A-Z][0-9]{2}$" },
        { key: "contact", message: "must be an email address (name@example.com)" },
      ]),
    );
    const ok = await api.post("/api/runs", { template_id: tpl.id, params: GOOD });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    expect((await finished(ok.run.id)).status).toBe("success");
  });

  it("refuses an enum without enum_values and a regex without a pattern when the template is saved", async () => {
    const flowId = await flowOf();
    for (const spec of [
      { key: "a", type: "enum" },
      { key: "b", type: "regex" },
      { key: "c", type: "string", enum_values: ["x"] },
    ]) {
      const res = await api.post("/api/templates", { name: "bad", flow_id: flowId, params_schema: [spec] });
      expect(res.status, JSON.stringify(res.json)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(JSON.stringify(res.json)).toMatch(/enum_values|pattern/);
    }
    const backtracking = await api.post("/api/templates", {
      name: "bad",
      flow_id: flowId,
      params_schema: [{ key: "d", type: "regex", pattern: "^(a)\\1$" }],
    });
    expect(backtracking.status).toBe(422);
    expect(backtracking.code).toBe("REGEX_INVALID");
  });
});

describe("the template lifecycle", { timeout: 90_000 }, () => {
  it("promotes a run, forks, recommends, shows the history, exports and imports it back", async () => {
    const source = await typedTemplate();
    const run = await api.post("/api/runs", { template_id: source.id, params: GOOD });
    expect((await finished(run.run.id)).status).toBe("success");

    // Promote: the run's params become defaults; the secret never does.
    const promoted = await api.post("/api/templates/promote", {
      run_id: run.run.id,
      template_name: "typed (known good)",
      change_note: "from a good run",
    });
    expect(promoted.status, JSON.stringify(promoted.json)).toBe(201);
    const v1 = promoted.json as Template;
    expect(v1).toMatchObject({
      name: "typed (known good)",
      status: "active",
      recommended: false,
      family_version: 1,
      parent_template_id: null,
      template_family_id: v1.id,
      change_note: "from a good run",
      defaults: { region: "eu", sku: "A12", contact: "ops@example.com", api_key: "k-live-123" },
    });
    expect(JSON.stringify(v1)).not.toContain("s3cret-token");
    expect(v1.defaults).not.toHaveProperty("token");

    // Fork a draft, then a second fork activated at once: the active parent becomes superseded.
    const draft = await api.post(`/api/templates/${v1.id}/fork-version`, { change_note: "draft" });
    expect(draft.status, JSON.stringify(draft.json)).toBe(201);
    expect(draft.json).toMatchObject({ status: "draft", family_version: 2, parent_template_id: v1.id });
    const v3res = await api.post(`/api/templates/${v1.id}/fork-version`, {
      defaults: { region: "us", sku: "B34", contact: "ops@example.com" },
      change_note: "US default",
      activate: true,
    });
    expect(v3res.status, JSON.stringify(v3res.json)).toBe(201);
    const v3 = v3res.json as Template;
    expect(v3).toMatchObject({ status: "active", family_version: 3, template_family_id: v1.id });
    expect((await api.get(`/api/templates/${v1.id}`)).json).toMatchObject({ status: "superseded" });

    // Activating the draft supersedes v3: exactly one active version per family.
    const draftId = (draft.json as Template).id;
    const activated = await api.post(`/api/templates/${draftId}/activate`);
    expect(activated.json).toMatchObject({ status: "active" });
    expect((await api.get(`/api/templates/${v3.id}`)).json).toMatchObject({ status: "superseded" });

    // Recommended: one per family, moved by each mark.
    expect((await api.post(`/api/templates/${v3.id}/mark-recommended`)).json).toMatchObject({
      recommended: true,
    });
    expect((await api.post(`/api/templates/${v1.id}/mark-recommended`)).json).toMatchObject({
      recommended: true,
    });
    const history = (await api.get(`/api/templates/${v3.id}/history`)).json as TemplateHistory;
    expect(history.template_family_id).toBe(v1.id);
    expect(history.items.map((t) => t.family_version)).toEqual([1, 2, 3]);
    expect(history.items.map((t) => t.status)).toEqual(["superseded", "active", "superseded"]);
    expect(history.items.filter((t) => t.recommended).map((t) => t.id)).toEqual([v1.id]);
    expect(history).toMatchObject({ active_template_id: draftId, recommended_template_id: v1.id });

    // Export: portable, the flow's steps inside, the credential-looking default masked.
    const exported = await api.get(`/api/templates/${v1.id}/export`);
    expect(exported.status).toBe(200);
    const doc = exported.json as {
      format: string;
      defaults: Record<string, unknown>;
      flow: { steps: unknown[] };
    };
    expect(doc.format).toBe("vetted.template/v1");
    expect(doc.defaults).toEqual({ region: "eu", sku: "A12", contact: "ops@example.com", api_key: "***" });
    expect(doc.flow.steps).toHaveLength(2);
    expect(JSON.stringify(doc)).not.toContain("k-live-123");

    // Import: a new family over a new flow; the masked default is not imported as a value.
    const imported = await api.post("/api/templates", doc);
    expect(imported.status, JSON.stringify(imported.json)).toBe(201);
    const copy = imported.json as Template;
    expect(copy.id).not.toBe(v1.id);
    expect(copy).toMatchObject({ status: "active", family_version: 1, template_family_id: copy.id });
    expect(copy.defaults).toEqual({ region: "eu", sku: "A12", contact: "ops@example.com" });
    expect(copy.flow_id).not.toBe(v1.flow_id);
    const again = await api.post("/api/runs", { template_id: copy.id, params: { api_key: "k2" } });
    expect(again.status, JSON.stringify(again.json)).toBe(201);
    expect((await finished(again.run.id)).status).toBe("success");
  });

  it("promotes a flow with its params inferred from the steps", async () => {
    const flowId = await flowOf([
      { id: "a", type: "set", vars: { x: "${params.shop}", y: "${secrets.password}" } },
    ]);
    const res = await api.post("/api/templates/promote", { flow_id: flowId, template_name: "from flow" });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      flow_id: flowId,
      flow_version: 1,
      params_schema: [
        { key: "shop", type: "string", required: true },
        { key: "password", type: "secret", required: true },
      ],
      defaults: {},
    });
  });

  it("refuses to promote a failed or unfinished run with 409 RUN_NOT_PROMOTABLE, and a body naming both or neither", async () => {
    const tpl = await typedTemplate();
    const failing = await api.post("/api/flows", {
      name: "fails",
      steps: [{ id: "no", type: "assert", value: 1, equals: 2 }],
    });
    const failedRun = await api.post("/api/runs", { flow_id: (failing.json as { id: string }).id });
    expect((await finished(failedRun.run.id)).status).toBe("failed");
    const refused = await api.post("/api/templates/promote", {
      run_id: failedRun.run.id,
      template_name: "x",
    });
    expect(refused.status).toBe(409);
    expect(refused.code).toBe("RUN_NOT_PROMOTABLE");
    expect(JSON.stringify(refused.json)).toContain("failed");

    const gated = await api.post("/api/flows", {
      name: "waits",
      steps: [{ id: "ok", type: "approval_gate", prompt: "Go?" }],
    });
    const waiting = await api.post("/api/runs", { flow_id: (gated.json as { id: string }).id });
    await api.waitForRun(waiting.run.id, (r) => r.status === "waiting_user", 30_000);
    const unfinished = await api.post("/api/templates/promote", {
      run_id: waiting.run.id,
      template_name: "x",
    });
    expect(unfinished.status).toBe(409);
    expect(unfinished.code).toBe("RUN_NOT_PROMOTABLE");

    const both = await api.post("/api/templates/promote", {
      run_id: "a",
      flow_id: tpl.flow_id,
      template_name: "x",
    });
    expect(both.status).toBe(400);
    const missing = await api.post("/api/templates/promote", { run_id: "run_nope", template_name: "x" });
    expect(missing.status).toBe(404);
    expect(missing.code).toBe("RUN_NOT_FOUND");
  });

  it("refuses to activate, fork or recommend an archived version (409 TEMPLATE_STATUS_CONFLICT)", async () => {
    const tpl = await typedTemplate();
    const fork = (await api.post(`/api/templates/${tpl.id}/fork-version`, {})).json as Template;
    await api.post(`/api/templates/${fork.id}/mark-recommended`);
    const archived = await api.post(`/api/templates/${fork.id}/archive`);
    expect(archived.json).toMatchObject({ status: "archived", recommended: false });
    for (const verb of ["activate", "mark-recommended", "fork-version"]) {
      const res = await api.post(
        `/api/templates/${fork.id}/${verb}`,
        verb === "fork-version" ? {} : undefined,
      );
      expect(res.status, verb).toBe(409);
      expect(res.code).toBe("TEMPLATE_STATUS_CONFLICT");
    }
    expect((await api.post("/api/templates/tpl_nope/mark-recommended")).code).toBe("TEMPLATE_NOT_FOUND");
  });
});
