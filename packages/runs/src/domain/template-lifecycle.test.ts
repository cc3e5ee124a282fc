import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { planRecovery } from "./recover-plan.js";
import { validateParams } from "./template.js";
import { exportTemplate, importedDefaults, inferParams, promotedDefaults } from "./template-lifecycle.js";
import {
  canMoveTemplate,
  TEMPLATE_STATUSES,
  TEMPLATE_TRANSITIONS,
  type TemplateStatus,
} from "./template-status.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const diagrams = [...readme.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
const lifecycle = diagrams.find((d) => d.includes("forkTemplateVersion")) ?? "";

describe("the template lifecycle", () => {
  it("draws in the README exactly the moves the transition table allows", () => {
    const edges = [...lifecycle.matchAll(/^\s*(\w+) --> (\w+)/gm)].map((m) => `${m[1]}>${m[2]}`);
    const table = TEMPLATE_STATUSES.flatMap((from) =>
      (TEMPLATE_TRANSITIONS[from] as readonly TemplateStatus[]).map((to) => `${from}>${to}`),
    );
    expect(edges.sort()).toEqual(table.sort());
    expect(canMoveTemplate("archived", "active")).toBe(false);
  });

  it("infers params from references, a secret reference winning over a plain one", () => {
    expect(inferParams([{ url: "${params.a}/${secrets.b}", x: "${params.b}" }])).toEqual([
      { key: "a", type: "string", required: true },
      { key: "b", type: "secret", required: true },
    ]);
  });

  it("keeps only declared, non-secret, scalar params as promoted defaults", () => {
    const specs = [
      { key: "a", type: "string" as const, required: false },
      { key: "s", type: "secret" as const, required: false },
    ];
    expect(promotedDefaults(specs, { a: "x", s: "leak", extra: 1 })).toEqual({ a: "x" });
  });

  it("masks credential-looking defaults on export and drops them on import", () => {
    const doc = exportTemplate(
      {
        id: "tpl_1",
        name: "t",
        flow_id: "flow_1",
        flow_version: 1,
        params_schema: [
          { key: "api_key", type: "string", required: false },
          { key: "region", type: "string", required: false },
        ],
        defaults: { api_key: "k", region: "eu" },
        policies: {} as never,
        version: 1,
        template_family_id: "tpl_1",
        parent_template_id: null,
        family_version: 1,
        status: "active",
        recommended: false,
        change_note: null,
        created_at: "",
        updated_at: "",
      },
      { name: "f", steps: [] },
      "2026-01-01T00:00:00.000Z",
    );
    expect(doc.defaults).toEqual({ api_key: "***", region: "eu" });
    expect(importedDefaults(doc.defaults)).toEqual({ region: "eu" });
  });

  it("validates enum, regex and email params", () => {
    const specs = [
      { key: "e", type: "enum" as const, enum_values: ["a"], required: true },
      { key: "r", type: "regex" as const, pattern: "^x+$", required: true },
      { key: "m", type: "email" as const, required: true },
    ];
    expect(validateParams(specs, {}, { e: "a", r: "xx", m: "a@b.co" })).toMatchObject({ ok: true });
    const bad = validateParams(specs, {}, { e: "b", r: "y", m: "nope" });
    expect(bad.ok ? [] : bad.issues.map((i) => i.key)).toEqual(["e", "r", "m"]);
  });

  it("has no recovery plan for a succeeded run, and plans replay for a cancelled one", () => {
    const base = { id: "run_1", wait: null, error: null, currentStepId: "s" };
    expect(planRecovery({ ...base, status: "success", reason: null }).ok).toBe(false);
    const cancelled = planRecovery({ ...base, status: "cancelled", reason: "cancelled" });
    expect(cancelled.ok && cancelled.plan.primary_action.action_id).toBe("replay");
  });
});
