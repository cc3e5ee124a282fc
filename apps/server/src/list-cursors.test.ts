import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

/**
 * The one cursor contract, walked from the OpenAPI document: every GET operation with a `cursor` query
 * parameter answers `?cursor=garbage` with 400 CURSOR_INVALID in the error envelope, whatever the list.
 * A new list route joins this test by being documented; a path parameter it cannot fill fails the test.
 */

interface Operation {
  parameters?: { in: string; name: string }[];
}
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
}

let t: TestApp;
const ids: Record<string, string> = {};

async function call(method: string, path: string, body?: unknown) {
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function created(method: string, path: string, body: unknown, field: string): Promise<string> {
  const answer = await call(method, path, body);
  expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(300);
  const id = answer.json[field];
  if (typeof id !== "string") throw new Error(`${path} answered no ${field}`);
  return id;
}

beforeAll(async () => {
  t = await createTestApp();
  mkdirSync(join(t.dir, "src"));
  writeFileSync(join(t.dir, "src", "a.txt"), "a");
  ids.job_id = await created("POST", "/api/jobs/analyze", { source_dir: join(t.dir, "src") }, "job_id");
  for (let i = 0; i < 200; i++) {
    const job = await call("GET", `/api/jobs/${ids.job_id}`);
    if (job.json.status === "succeeded") break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const steps = [{ id: "code", type: "otp_gate", prompt: "Enter the code" }];
  ids.flow_id = await created("POST", "/api/flows", { name: "cursor walk", steps }, "id");
  ids.template_id = await created(
    "POST",
    "/api/templates",
    { name: "cursor walk", flow_id: ids.flow_id, params_schema: [] },
    "id",
  );
  ids.run_id = await created("POST", "/api/runs", { flow_id: ids.flow_id }, "id");
  ids.step_id = "code";
  const hook = {
    url: "http://127.0.0.1:9/hook",
    events: ["run.finished"],
    secret: "whsec_cursor_walk_0123456789",
  };
  ids.webhook_id = await created("POST", "/api/webhooks", hook, "id");
}, 30_000);

afterAll(async () => {
  await t.close();
});

/** Every documented GET operation with a `cursor` query parameter, with its path filled with real ids. */
async function listOperations(): Promise<string[]> {
  const doc = (await call("GET", "/api/openapi.json")).json as unknown as OpenApiDoc;
  const paths: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    const get = operations.get;
    if (get?.parameters?.some((p) => p.in === "query" && p.name === "cursor") !== true) continue;
    paths.push(
      path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const id = ids[name];
        if (id === undefined) throw new Error(`${path}: no real id for {${name}}; create one in beforeAll`);
        return id;
      }),
    );
  }
  return paths;
}

describe("every list route", () => {
  it("is found in the OpenAPI document (runs, flows, templates, jobs, manifests, conflicts, audit, queue)", async () => {
    const paths = await listOperations();
    for (const expected of [
      "/api/runs",
      "/api/flows",
      "/api/templates",
      "/api/jobs",
      "/api/jobs/history",
      `/api/jobs/${ids.job_id}/manifest`,
      `/api/jobs/${ids.job_id}/manifest/conflicts`,
      `/api/jobs/${ids.job_id}/audit`,
      `/api/jobs/${ids.job_id}/review-queue`,
    ]) {
      expect(paths).toContain(expected);
    }
  });

  it.each(["garbage", "eyJ2IjoxfQ", "AAAA", "0", "-1", "1e309", "Infinity", "%00..%2F", "a".repeat(600)])(
    "answers ?cursor=%s with 400 CURSOR_INVALID, and a first page without one",
    async (cursor) => {
      const wrong: { path: string; status: number; code: string | undefined }[] = [];
      for (const path of await listOperations()) {
        const first = await call("GET", path);
        expect(first.status, path).toBe(200);
        expect(first.json, path).toHaveProperty("items");
        if (cursor === "0" && path.endsWith("/audit")) continue; // a sequence cursor: 0 is the start
        const answer = await call("GET", `${path}?cursor=${cursor}`);
        const error = answer.json.error as { code?: string; request_id?: string } | undefined;
        if (answer.status !== 400 || error?.code !== "CURSOR_INVALID" || error.request_id === undefined) {
          wrong.push({ path, status: answer.status, code: error?.code });
        }
      }
      expect(wrong).toEqual([]);
    },
  );
});
