import { describe, expect, it } from "vitest";
import { DEFAULT_POLICIES, type ParamSpec, Policies, TemplateInput, validateParams } from "./template.js";

const specs: ParamSpec[] = [
  { key: "shop", type: "string", required: true },
  { key: "qty", type: "number", required: false },
  { key: "size", type: "string", required: false, enum: ["S", "M"] },
  { key: "sku", type: "string", required: false, pattern: "^[A-Z][0-9]+$" },
  { key: "card", type: "secret", required: true },
];

describe("validateParams", () => {
  it("fills defaults and keeps secrets apart from params", () => {
    expect(validateParams(specs, { qty: 1 }, { shop: "s", card: "4242" })).toEqual({
      ok: true,
      params: { shop: "s", qty: 1 },
      secrets: { card: "4242" },
    });
  });

  it("reports every missing, mistyped, out-of-enum, unmatched and unknown value", () => {
    const result = validateParams(specs, {}, { qty: "2", size: "XL", sku: "a1", extra: 1 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.key).sort()).toEqual(["card", "extra", "qty", "shop", "size", "sku"]);
  });
});

describe("templates", () => {
  it("fills every policy default", () => {
    expect(Policies.parse({})).toEqual({
      otp: { source: "manual", max_attempts: 3, timeout_seconds: 600 },
      gate_timeout_seconds: 3600,
      run_timeout_seconds: 7200,
      retries: 0,
    });
  });

  it("writes out DEFAULT_POLICIES as exactly what parsing no policies gives", () => {
    expect(DEFAULT_POLICIES).toStrictEqual(Policies.parse({}));
  });

  it("refuses duplicate keys, secret defaults and defaults for unknown params", () => {
    const result = TemplateInput.safeParse({
      name: "t",
      flow_id: "flow_1",
      params_schema: [
        { key: "a", type: "string" },
        { key: "a", type: "string" },
        { key: "s", type: "secret" },
      ],
      defaults: { s: "x", nope: 1 },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join("."))).toEqual([
      "params_schema.1.key",
      "defaults.s",
      "defaults.nope",
    ]);
  });
});
