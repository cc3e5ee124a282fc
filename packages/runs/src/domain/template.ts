import { compileUserRegex } from "@vetted/store/limits";
import { z } from "zod";
import { checkOtpPolicy } from "./inbound-sms.js";
import { checkParamSpec, checkTypedValue, valueTypeOf } from "./param-types.js";
import { TEMPLATE_STATUSES } from "./template-status.js";

/** The types a template parameter can have; `secret` values are never returned or logged. */
export const PARAM_TYPES = ["string", "number", "boolean", "secret", "enum", "regex", "email"] as const;

/** One declared template parameter. */
export const ParamSpec = z
  .object({
    key: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "a key is letters, digits and _"),
    type: z.enum(PARAM_TYPES),
    required: z.boolean().default(false),
    enum: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .min(1)
      .optional(),
    pattern: z.string().min(1).optional(),
    enum_values: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "type enum: the allowed values" }),
    description: z.string().max(500).optional(),
  })
  .superRefine((spec, ctx) => checkParamSpec(spec, ctx))
  .meta({ id: "ParamSpec" });
/** One declared template parameter. */
export type ParamSpec = z.infer<typeof ParamSpec>;

/** A template's run policies; every field but `otp.required` has a default. */
export const Policies = z
  .object({
    otp: z
      .object({
        required: z
          .boolean()
          .optional()
          .meta({
            description:
              "true: every run needs a code (an otp_gate asks for it; a flow without one asks before its first " +
              "step); false: otp_gate steps are skipped; absent: otp_gate steps ask, nothing more",
          }),
        source: z.enum(["manual", "inbound_messages", "inbound_sms"]).default("manual"),
        max_attempts: z.number().int().min(1).max(10).default(3),
        timeout_seconds: z.number().int().min(1).max(86_400).default(600),
        to: z
          .string()
          .min(1)
          .max(32)
          .optional()
          .meta({ description: "inbound_sms: the number codes are texted to" }),
        sender: z.string().min(1).max(32).optional().meta({ description: "inbound_sms: only this sender" }),
        code_pattern: z.string().min(1).max(200).optional().meta({
          description: "inbound_sms: RE2 pattern of the code (group 1 or the match); default six digits",
        }),
      })
      .superRefine((otp, ctx) => checkOtpPolicy(otp, ctx))
      .prefault({}),
    gate_timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .default(3600),
    run_timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .default(7200),
    retries: z.number().int().min(0).max(5).default(0),
  })
  .meta({ id: "Policies" });
/** A template's run policies. */
export type Policies = z.infer<typeof Policies>;

/**
 * The policies a run gets when it names a flow without a template: what `Policies.parse({})` gives (a test
 * holds them equal), written out so that importing the package parses nothing.
 */
export const DEFAULT_POLICIES: Policies = {
  otp: { source: "manual", max_attempts: 3, timeout_seconds: 600 },
  gate_timeout_seconds: 3600,
  run_timeout_seconds: 7200,
  retries: 0,
};

/** Template param defaults: strings, numbers, booleans. */
export const Defaults = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** The body of `POST /api/templates`. */
export const TemplateInput = z
  .object({
    name: z.string().min(1).max(200),
    flow_id: z.string().min(1),
    flow_version: z.number().int().min(1).optional(),
    params_schema: z.array(ParamSpec).default([]),
    defaults: Defaults.default({}),
    policies: Policies.prefault({}),
  })
  .superRefine((t, ctx) => checkTemplate(t, ctx))
  .meta({ id: "TemplateInput" });
/** The body of `POST /api/templates`. */
export type TemplateInput = z.input<typeof TemplateInput>;

/** The body of `PATCH /api/templates/{template_id}`: any field, plus an optional `expected_version`. */
export const TemplatePatch = z
  .object({
    name: z.string().min(1).max(200).optional(),
    flow_version: z.number().int().min(1).optional(),
    params_schema: z.array(ParamSpec).optional(),
    defaults: Defaults.optional(),
    policies: Policies.optional(),
    expected_version: z.number().int().min(1).optional(),
  })
  .meta({ id: "TemplatePatch" });
/** The body of `PATCH /api/templates/{template_id}`. */
export type TemplatePatch = z.input<typeof TemplatePatch>;

/** A stored template. */
export const Template = z
  .object({
    id: z.string(),
    name: z.string(),
    flow_id: z.string(),
    flow_version: z.number().int().nullable().meta({ description: "Pinned flow version; null = latest" }),
    params_schema: z.array(ParamSpec),
    defaults: Defaults,
    policies: Policies,
    version: z.number().int(),
    template_family_id: z.string().meta({ description: "Every version of one template shares it" }),
    parent_template_id: z.string().nullable().meta({ description: "The version this one was forked from" }),
    family_version: z.number().int().meta({ description: "1, 2, … in the order versions were made" }),
    status: z.enum(TEMPLATE_STATUSES),
    recommended: z.boolean().meta({ description: "At most one version of a family is recommended" }),
    change_note: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Template" });
/** A stored template. */
export type Template = z.infer<typeof Template>;

function checkTemplate(
  t: { params_schema: ParamSpec[]; defaults: Record<string, unknown> },
  ctx: z.RefinementCtx,
): void {
  const keys = new Set<string>();
  t.params_schema.forEach((spec, i) => {
    if (keys.has(spec.key)) {
      ctx.addIssue({
        code: "custom",
        path: ["params_schema", i, "key"],
        message: `duplicate key ${spec.key}`,
      });
    }
    keys.add(spec.key);
    if (spec.type === "secret" && Object.hasOwn(t.defaults, spec.key)) {
      ctx.addIssue({ code: "custom", path: ["defaults", spec.key], message: "secrets cannot have defaults" });
    }
  });
  for (const key of Object.keys(t.defaults)) {
    if (!keys.has(key)) ctx.addIssue({ code: "custom", path: ["defaults", key], message: "no such param" });
  }
}

/** One reason a param value was refused. */
export interface ParamIssue {
  key: string;
  message: string;
}

/** The outcome of {@link validateParams}: plain params and secrets apart, or every issue. */
export type ParamsResult =
  | { ok: true; params: Record<string, unknown>; secrets: Record<string, string> }
  | { ok: false; issues: ParamIssue[] };

/**
 * Checks `input` against a template's params (required, type, enum, pattern), fills defaults, refuses
 * unknown keys and splits secrets from plain params.
 */
export function validateParams(
  specs: readonly ParamSpec[],
  defaults: Readonly<Record<string, unknown>>,
  input: Readonly<Record<string, unknown>>,
): ParamsResult {
  const issues: ParamIssue[] = [];
  const params: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  const known = new Set(specs.map((s) => s.key));
  for (const key of Object.keys(input)) {
    if (!known.has(key)) issues.push({ key, message: "is not a parameter of this template" });
  }
  for (const spec of specs) {
    const value = Object.hasOwn(input, spec.key) ? input[spec.key] : defaults[spec.key];
    if (value === undefined || value === null) {
      if (spec.required) issues.push({ key: spec.key, message: "is required" });
      continue;
    }
    const expected = valueTypeOf(spec.type);
    if (typeof value !== expected) {
      issues.push({ key: spec.key, message: `must be a ${expected}` });
      continue;
    }
    const typed = checkTypedValue(spec, value);
    if (typed !== undefined) {
      issues.push({ key: spec.key, message: typed });
      continue;
    }
    if (spec.enum !== undefined && !spec.enum.includes(value as string | number | boolean)) {
      issues.push({ key: spec.key, message: "is not one of the allowed values" });
      continue;
    }
    if (spec.pattern !== undefined && !compileUserRegex(spec.pattern).test(String(value))) {
      issues.push({ key: spec.key, message: "does not match the pattern" });
      continue;
    }
    if (spec.type === "secret") secrets[spec.key] = value as string;
    else params[spec.key] = value;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, params, secrets };
}
