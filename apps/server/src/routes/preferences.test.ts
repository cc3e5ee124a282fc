import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const json = (body: unknown) => ({
  method: "POST",
  headers: { ...LOCAL, "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: { issues?: Array<{ pointer: string; message: string }> };
  };
}

async function app() {
  t = await createTestApp();
  return t.app;
}

describe("naming templates", () => {
  it("round-trips a template: saved with a generated id, listed, updated with a new version, deleted", async () => {
    const a = await app();
    const created = await a.request(
      "/api/preferences/naming-templates",
      json({ name: "By year", template: "{category}/{yyyy}/{name}{ext}" }),
    );
    expect(created.status).toBe(200);
    const item = (await created.json()) as { id: string; version: number; name: string; template: string };
    expect(item).toMatchObject({ name: "By year", template: "{category}/{yyyy}/{name}{ext}", version: 1 });
    expect(item.id).toMatch(/^tpl_/);

    const updated = await a.request(
      "/api/preferences/naming-templates",
      json({ id: item.id, name: "By year", template: "{category}/{yyyy}/{mm}/{name}{ext}" }),
    );
    expect(await updated.json()).toMatchObject({
      id: item.id,
      version: 2,
      template: "{category}/{yyyy}/{mm}/{name}{ext}",
    });

    const list = (await (
      await a.request("/api/preferences/naming-templates", { headers: LOCAL })
    ).json()) as {
      items: Array<{ id: string }>;
    };
    expect(list.items.map((i) => i.id)).toEqual([item.id]);

    const del = await a.request(`/api/preferences/naming-templates?id=${item.id}`, {
      method: "DELETE",
      headers: LOCAL,
    });
    expect(del.status).toBe(204);
    const again = await a.request(`/api/preferences/naming-templates?id=${item.id}`, {
      method: "DELETE",
      headers: LOCAL,
    });
    expect(again.status).toBe(404);
    expect(((await again.json()) as ErrorBody).error.code).toBe("PREFERENCE_NOT_FOUND");
  });

  it("rejects an unknown token with 400 naming the token at /template", async () => {
    const a = await app();
    const res = await a.request(
      "/api/preferences/naming-templates",
      json({ name: "Bad", template: "{category}/{year}/{name}{ext}" }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details?.issues?.[0]).toMatchObject({ pointer: "/template" });
    expect(body.error.details?.issues?.[0]?.message).toContain("{year}");
  });

  it.each([
    ["../{name}{ext}", ".."],
    ["/abs/{name}{ext}", "relative"],
    ["{category}//{name}{ext}", "empty"],
    ["{category}/a:b/{name}{ext}", "a:b"],
    ["{category}/{yyyy}", "{name}"],
  ])("rejects the unsafe template %s, naming the offending part", async (template, part) => {
    const a = await app();
    const res = await a.request("/api/preferences/naming-templates", json({ name: "Unsafe", template }));
    expect(res.status).toBe(400);
    const issue = ((await res.json()) as ErrorBody).error.details?.issues?.[0];
    expect(issue?.pointer).toBe("/template");
    expect(issue?.message).toContain(part);
  });

  it("refuses a second template with a name already taken", async () => {
    const a = await app();
    await a.request("/api/preferences/naming-templates", json({ name: "Same", template: "{name}{ext}" }));
    const res = await a.request(
      "/api/preferences/naming-templates",
      json({ name: "Same", template: "{hash8}{ext}" }),
    );
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error.code).toBe("PREFERENCE_NAME_TAKEN");
  });
  it("saves an item again under the id of one that was deleted, continuing its version history", async () => {
    const a = await app();
    const body = { id: "tpl_again", name: "Again", template: "{category}/{name}{ext}" };
    expect((await a.request("/api/preferences/naming-templates", json(body))).status).toBe(200);
    const del = await a.request("/api/preferences/naming-templates?id=tpl_again", {
      method: "DELETE",
      headers: LOCAL,
    });
    expect(del.status).toBe(204);
    const again = await a.request("/api/preferences/naming-templates", json(body));
    expect(again.status).toBe(200);
    // Version 1 was saved, version 2 recorded the deletion: the new save is version 3.
    expect(await again.json()).toMatchObject({ id: "tpl_again", version: 3 });
  });
});

describe("review rules", () => {
  it("round-trips a rule with defaults filled in", async () => {
    const a = await app();
    const res = await a.request(
      "/api/preferences/review-rules",
      json({
        name: "PDF receipts",
        conditions: {
          all: [{ field: "extension", in: ["pdf"] }],
          any: [{ field: "name_glob", glob: "*receipt*" }],
        },
        actions: [{ type: "set_category", category: "documents" }, { type: "approve" }],
      }),
    );
    expect(res.status).toBe(200);
    const rule = (await res.json()) as Record<string, unknown>;
    expect(rule).toMatchObject({ enabled: true, priority: 0, stop_further_rules: false, version: 1 });
    expect(String(rule.id)).toMatch(/^rule_/);
    const list = (await (await a.request("/api/preferences/review-rules", { headers: LOCAL })).json()) as {
      items: unknown[];
    };
    expect(list.items).toHaveLength(1);
  });

  it("rejects a bad regex and a set_target with an unknown token, each at its own field", async () => {
    const a = await app();
    const res = await a.request(
      "/api/preferences/review-rules",
      json({
        name: "Broken",
        conditions: { any: [{ field: "name_regex", regex: "(unclosed" }] },
        actions: [{ type: "set_target", template: "{nope}/{name}{ext}" }],
      }),
    );
    expect(res.status).toBe(400);
    const issues = ((await res.json()) as ErrorBody).error.details?.issues ?? [];
    expect(issues.map((i) => i.pointer).sort()).toEqual(["/actions/0/template", "/conditions/any/0/regex"]);
  });

  it("rejects a rule without any condition", async () => {
    const a = await app();
    const res = await a.request(
      "/api/preferences/review-rules",
      json({ name: "Empty", conditions: {}, actions: [{ type: "skip" }] }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.details?.issues?.[0]?.pointer).toBe("/conditions");
  });
});

describe("views", () => {
  it("round-trips a saved filter and sort order, and rejects an unknown sort field", async () => {
    const a = await app();
    const ok = await a.request(
      "/api/preferences/views",
      json({
        name: "Big conflicts",
        filter: { bucket: "conflict" },
        sort: [{ field: "size", direction: "desc" }],
      }),
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      filter: { bucket: "conflict" },
      sort: [{ field: "size", direction: "desc" }],
    });
    const bad = await a.request("/api/preferences/views", json({ name: "Bad", sort: [{ field: "colour" }] }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.details?.issues?.[0]?.pointer).toBe("/sort/0/field");
  });
});

describe("watch sources", () => {
  it("round-trips a watch source and rejects a relative path and an unknown pack", async () => {
    const a = await app();
    // A folder inside the allowed roots (it need not exist yet).
    const downloads = join(t?.dir ?? "", "downloads");
    const ok = await a.request(
      "/api/preferences/watch-sources",
      json({
        name: "Downloads",
        path: downloads,
        enabled: true,
        strategy_pack_id: "receipts",
        ignore: ["*.part"],
      }),
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      name: "Downloads",
      path: downloads,
      strategy_pack_id: "receipts",
    });
    const bad = await a.request(
      "/api/preferences/watch-sources",
      json({ name: "Bad", path: "relative/dir", enabled: true, strategy_pack_id: "nope" }),
    );
    expect(bad.status).toBe(400);
    const pointers = (((await bad.json()) as ErrorBody).error.details?.issues ?? [])
      .map((i) => i.pointer)
      .sort();
    expect(pointers).toEqual(["/path", "/strategy_pack_id"]);
  });
});

describe("runtime settings", () => {
  it("stores the classifier API key but only ever answers it masked", async () => {
    const a = await app();
    const key = "sk-test-0123456789abcdefWXYZ";
    const saved = await a.request(
      "/api/preferences/runtime",
      json({
        workers: 2,
        ai_classifier: { endpoint_url: "https://llm.example/v1", model: "small", api_key: key },
      }),
    );
    expect(saved.status).toBe(200);
    const text = await saved.text();
    expect(text).not.toContain(key);
    expect(JSON.parse(text)).toMatchObject({
      workers: 2,
      ai_classifier: { api_key: "••••••••WXYZ", api_key_set: true },
    });

    // Sending the masked value back (as a form would) or leaving the key out keeps the stored key.
    const masked = JSON.parse(text) as { ai_classifier: { api_key: string } };
    await a.request(
      "/api/preferences/runtime",
      json({
        ai_classifier: {
          endpoint_url: "https://llm.example/v2",
          model: "small",
          api_key: masked.ai_classifier.api_key,
        },
      }),
    );
    expect(await t?.deps.preferences.runtimeSettings()).toMatchObject({
      ai_classifier: { api_key: key, endpoint_url: "https://llm.example/v2" },
    });

    const got = await (await a.request("/api/preferences/runtime", { headers: LOCAL })).text();
    expect(got).not.toContain(key);
    expect(JSON.parse(got)).toMatchObject({ version: 2, ai_classifier: { api_key_set: true } });
  });

  it("rejects a bad field with a field-level message", async () => {
    const a = await app();
    const res = await a.request(
      "/api/preferences/runtime",
      json({ workers: 0, default_naming_template: "{bogus}" }),
    );
    expect(res.status).toBe(400);
    const pointers = (((await res.json()) as ErrorBody).error.details?.issues ?? [])
      .map((i) => i.pointer)
      .sort();
    expect(pointers).toEqual(["/default_naming_template", "/workers"]);
  });

  it("validates proposed settings without saving, answering each problem separately", async () => {
    const a = await app();
    const root = join(t?.dir ?? "", "root");
    mkdirSync(root);
    const res = await a.request(
      "/api/preferences/runtime/validate",
      json({
        allowed_roots: [root, join(root, "missing")],
        default_output_root: "/elsewhere/out",
        limits: { max_file_bytes: 10 },
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; problems: Array<{ pointer: string; code: string }> };
    expect(body.ok).toBe(false);
    expect(body.problems.map((p) => `${p.pointer} ${p.code}`).sort()).toEqual([
      "/allowed_roots/1 NOT_FOUND",
      "/default_output_root NOT_FOUND",
      "/default_output_root OUTSIDE_ALLOWED_ROOTS",
      "/limits/max_file_bytes LIMIT_TOO_SMALL",
    ]);
    const good = await a.request(
      "/api/preferences/runtime/validate",
      json({ allowed_roots: [root], default_output_root: join(root, "out") }),
    );
    expect(await good.json()).toEqual({ ok: true, problems: [] });
    // Nothing was saved.
    expect(await (await a.request("/api/preferences/runtime", { headers: LOCAL })).json()).toMatchObject({
      version: 0,
      allowed_roots: [],
    });
  });

  it("answers malformed proposed settings as problems rather than a 400", async () => {
    const a = await app();
    const res = await a.request(
      "/api/preferences/runtime/validate",
      json({ workers: "many", default_naming_template: "{x}" }),
    );
    const body = (await res.json()) as { ok: boolean; problems: Array<{ pointer: string }> };
    expect(body.ok).toBe(false);
    expect(body.problems.map((p) => p.pointer).sort()).toEqual(["/default_naming_template", "/workers"]);
  });
});

describe("strategy packs", () => {
  it("lists the built-in packs with the active one marked, following the runtime setting", async () => {
    const a = await app();
    const list = async () =>
      (
        (await (await a.request("/api/preferences/strategy-packs", { headers: LOCAL })).json()) as {
          items: Array<{
            id: string;
            active: boolean;
            categories: string[];
            confidence_threshold: number;
            default_rules: unknown[];
          }>;
        }
      ).items;
    const before = await list();
    expect(before.map((p) => p.id)).toEqual([
      "downloads-cleanup",
      "photos-by-date",
      "documents-by-type",
      "receipts",
      "folders-kept",
    ]);
    expect(before.filter((p) => p.active).map((p) => p.id)).toEqual(["downloads-cleanup"]);
    for (const p of before) {
      expect(p.categories.length).toBeGreaterThan(0);
      expect(p.default_rules.length).toBeGreaterThan(0);
    }
    await a.request("/api/preferences/runtime", json({ active_strategy_pack: "receipts" }));
    expect((await list()).filter((p) => p.active).map((p) => p.id)).toEqual(["receipts"]);
  });

  it("is read-only", async () => {
    const a = await app();
    const res = await a.request("/api/preferences/strategy-packs", json({ id: "mine" }));
    expect(res.status).toBe(405);
  });
});

describe("openapi", () => {
  it("documents every preference, review and inbox route", async () => {
    const a = await app();
    const doc = (await (await a.request("/api/openapi.json", { headers: LOCAL })).json()) as {
      paths: Record<string, unknown>;
    };
    for (const p of [
      "naming-templates",
      "review-rules",
      "views",
      "watch-sources",
      "runtime",
      "runtime/validate",
      "strategy-packs",
      "learned-rules",
    ]) {
      expect(doc.paths).toHaveProperty(`/api/preferences/${p}`);
    }
    for (const p of [
      "/api/jobs/{job_id}/review-queue",
      "/api/jobs/{job_id}/review-queue/batch-triage",
      "/api/jobs/{job_id}/review-rules/preview",
      "/api/jobs/{job_id}/review-rules/apply",
      "/api/jobs/{job_id}/review-rules/from-examples",
      "/api/inbox/scan",
      "/api/inbox/analyze",
    ]) {
      expect(doc.paths).toHaveProperty([p]);
    }
  });
});
