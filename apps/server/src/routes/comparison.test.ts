import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

const JSON_HEADERS = { ...LOCAL, "Content-Type": "application/json" };

function row(id: string, hostFamily: string) {
  return {
    id,
    label: `Starter ${id}`,
    status: "supported now",
    starterKind: "skill",
    recommendedPack: `${id}-pack`,
    hostFamily,
    firstSuccessMode: "read-only-mcp",
    readOnly: true,
    needsRuntimeInvoke: false,
    needsMcpTransport: true,
    bestEntry: "docs/start.md",
    smokeCommand: "npx smoke",
    copyReadyPackPath: `packs/${id}`,
    compareAgainst: [],
    recommendedDocs: [],
    bestWhen: ["You want read-only access."],
    avoidWhen: [],
    safeClaims: [],
    notYetSupported: [],
  };
}

const document = {
  $schema: "https://unpkg.com/@vetted/comparison/schema/2020-12.json",
  comparisonVersion: 1,
  filters: [
    {
      id: "host",
      label: "Host",
      field: "hostFamily",
      values: [
        { id: "mcp", label: "MCP", comparisonIds: ["a", "b"] },
        { id: "favourites", label: "Favourites", comparisonIds: ["a"] },
      ],
    },
  ],
  comparisons: [row("a", "mcp"), row("b", "mcp")],
};

async function post(body: unknown) {
  t = await createTestApp();
  return t.app.request("/api/comparison/validate", {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });
}

describe("POST /api/comparison/validate", () => {
  it("answers a valid document with its lint warnings", async () => {
    const res = await post({ document });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      ok: true,
      valid: true,
      issues: [],
      lint_issues: [
        { code: "FILTER_VALUE_NOT_DERIVED", severity: "warning", pointer: "/filters/0/values/1/id" },
      ],
      errors: 0,
      warnings: 1,
    });
  });

  it("answers every schema issue of an invalid document as a 200, not an error", async () => {
    const broken = { ...document, comparisons: [{ ...row("a", "vscode"), colour: "teal" }, row("b", "mcp")] };
    const res = await post({ document: broken, curated_groups: ["host"] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; issues: Array<{ code: string; pointer: string }> };
    expect(body.ok).toBe(false);
    expect(body.issues.map((issue) => [issue.code, issue.pointer])).toEqual([
      ["UNKNOWN_KEY", "/comparisons/0/colour"],
      ["INVALID_ENUM", "/comparisons/0/hostFamily"],
    ]);
  });

  it("locates issues in a text, syntax errors included", async () => {
    const res = await post({ text: '{\n  "$schema": "x",\n  "comparisonVersion": 1\n  "filters": []\n}' });
    expect(await res.json()).toMatchObject({
      ok: false,
      issues: [{ code: "INVALID_JSON", line: 4, column: 3 }],
    });
  });

  it("refuses a body sending neither or both of document and text", async () => {
    const res = await post({ document, text: "{}" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.message).toContain("Send exactly one of document or text.");
  });

  it("is described in the OpenAPI document", async () => {
    t = await createTestApp();
    const res = await t.app.request("/api/openapi.json", { headers: LOCAL });
    const spec = (await res.json()) as { paths: Record<string, unknown>; components: { schemas: object } };
    expect(Object.keys(spec.paths)).toContain("/api/comparison/validate");
    expect(Object.keys(spec.components.schemas)).toEqual(
      expect.arrayContaining(["ComparisonCheck", "ComparisonIssue", "CheckComparisonInput"]),
    );
  });
});
