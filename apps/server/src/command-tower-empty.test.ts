import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

let t: TestApp;
let server: Loopback;
const T = "/api/command-tower";

async function get(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: LOCAL });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  t = await createTestApp();
  server = await serveOnLoopback((request) => t.app.fetch(request));
});

afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe("the command tower before any session was recorded", () => {
  it("answers the latest flow with an empty preview, not 404", async () => {
    const empty = {
      session_id: null,
      start_url: null,
      generated_at: null,
      source_event_count: 0,
      step_count: 0,
      draft_version: 0,
      steps: [],
    };
    for (const query of ["", "?session_id=none", "?session_id=null"]) {
      expect(await get(`${T}/latest-flow${query}`)).toEqual({ status: 200, json: empty });
    }
    expect((await get(`${T}/overview`)).json).toMatchObject({ latest_flow: null });
  });

  it("still refuses a named session that does not exist, and the draft that has no session", async () => {
    expect(await get(`${T}/latest-flow?session_id=ss_unknown`)).toMatchObject({
      status: 404,
      json: { error: { code: "SESSION_NOT_FOUND" } },
    });
    expect(await get(`${T}/latest-flow?session_id=`)).toMatchObject({
      status: 400,
      json: { error: { code: "SESSION_ID_INVALID" } },
    });
    expect((await get(`${T}/latest-flow-draft`)).status).toBe(404);
  });

  it("documents the empty preview in the OpenAPI document", async () => {
    const doc = (await get("/api/openapi.json")).json as {
      components: { schemas: Record<string, { properties: Record<string, { type?: unknown }> }> };
    };
    const latest = doc.components.schemas.LatestFlow;
    expect(latest?.properties.session_id?.type).toEqual(["string", "null"]);
  });
});
