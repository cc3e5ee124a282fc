/*
 * The template lifecycle's requests and pure planning: promoting a run or flow (params inferred from the
 * steps, a successful run's params as defaults, secrets dropped), forking a version, the family history,
 * and the portable export (secret-looking defaults masked as `***`, never imported back as values).
 */
import { z } from "zod";
import { Defaults, ParamSpec, Policies, Template } from "./template.js";
import { MASKED, maskedKeys } from "./template-mask.js";

/** The body of `POST /api/templates/promote`: exactly one of `flow_id` and `run_id`. */
export const PromoteInput = z
  .object({
    flow_id: z.string().min(1).optional(),
    run_id: z.string().min(1).optional(),
    template_name: z.string().min(1).max(200),
    change_note: z.string().max(2000).optional(),
  })
  .refine((v) => (v.flow_id === undefined) !== (v.run_id === undefined), {
    message: "give exactly one of flow_id and run_id",
    path: ["flow_id"],
  })
  .meta({ id: "PromoteInput" });
/** The body of `POST /api/templates/promote`. */
export type PromoteInput = z.input<typeof PromoteInput>;

/**
 * The body of `POST /api/templates/{template_id}/fork-version`: the new version copies the template and
 * takes these changes; it starts `draft`, or `active` (superseding the family's active version) with
 * `activate: true`.
 */
export const ForkInput = z
  .object({
    name: z.string().min(1).max(200).optional(),
    flow_version: z.number().int().min(1).optional(),
    params_schema: z.array(ParamSpec).optional(),
    defaults: Defaults.optional(),
    policies: Policies.optional(),
    change_note: z.string().max(2000).optional(),
    activate: z.boolean().default(false),
  })
  .meta({ id: "ForkInput" });
/** The body of `POST /api/templates/{template_id}/fork-version`. */
export type ForkInput = z.input<typeof ForkInput>;

/** `GET /api/templates/{template_id}/history`: every version of the family, oldest first. */
export const TemplateHistory = z
  .object({
    template_family_id: z.string(),
    active_template_id: z.string().nullable(),
    recommended_template_id: z.string().nullable(),
    items: z.array(Template),
  })
  .meta({ id: "TemplateHistory" });
/** A template family's history. */
export type TemplateHistory = z.infer<typeof TemplateHistory>;

/** The `format` of a template export. */
export const TEMPLATE_EXPORT_FORMAT = "vetted.template/v1";

/** A portable template: its flow's steps, params, masked defaults and policies. */
export const TemplateExport = z
  .object({
    format: z.literal(TEMPLATE_EXPORT_FORMAT),
    name: z.string().min(1).max(200),
    change_note: z.string().max(2000).nullable().optional(),
    flow: z.object({
      name: z.string().min(1).max(200),
      steps: z.array(z.record(z.string(), z.unknown())).min(1),
    }),
    params_schema: z.array(ParamSpec).default([]),
    defaults: Defaults.default({}).meta({ description: `Secret-looking defaults read "${MASKED}"` }),
    policies: Policies.prefault({}),
    source: z
      .object({
        template_id: z.string(),
        template_family_id: z.string(),
        family_version: z.number().int(),
        exported_at: z.string(),
      })
      .optional(),
  })
  .meta({ id: "TemplateExport" });
/** A portable template. */
export type TemplateExport = z.input<typeof TemplateExport>;

const REFERENCE = /\$\{(params|secrets)\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The params a flow's steps reference: `${params.x}` as a required string, `${secrets.x}` as a required
 * secret, in the order first seen.
 */
export function inferParams(steps: unknown): ParamSpec[] {
  const found = new Map<string, ParamSpec["type"]>();
  const text = JSON.stringify(steps);
  for (const m of text.matchAll(REFERENCE)) {
    const key = m[2];
    if (key === undefined) continue;
    const type = m[1] === "secrets" ? "secret" : "string";
    if (!found.has(key) || type === "secret") found.set(key, type);
  }
  return [...found].map(([key, type]) => ({ key, type, required: true }));
}

/**
 * A successful run's params as defaults of the promoted template: only declared, non-secret params whose
 * value is a string, number or boolean (secrets are never defaults, and never in a run's params anyway).
 */
export function promotedDefaults(
  specs: readonly ParamSpec[],
  params: Readonly<Record<string, unknown>>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const spec of specs) {
    if (spec.type === "secret" || !Object.hasOwn(params, spec.key)) continue;
    const value = params[spec.key];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      out[spec.key] = value;
    }
  }
  return out;
}

/** The export of a template over its flow's steps, with secret-looking defaults masked. */
export function exportTemplate(
  t: Template,
  flow: { name: string; steps: readonly unknown[] },
  exportedAt: string,
): z.output<typeof TemplateExport> {
  const masked = new Set(maskedKeys(t.params_schema, t.defaults));
  const defaults = Object.fromEntries(
    Object.entries(t.defaults).map(([k, v]) => [k, masked.has(k) ? MASKED : v]),
  );
  return {
    format: TEMPLATE_EXPORT_FORMAT,
    name: t.name,
    change_note: t.change_note,
    flow: { name: flow.name, steps: flow.steps as Record<string, unknown>[] },
    params_schema: t.params_schema,
    defaults,
    policies: t.policies,
    source: {
      template_id: t.id,
      template_family_id: t.template_family_id,
      family_version: t.family_version,
      exported_at: exportedAt,
    },
  };
}

/** An import's defaults: every masked value (`***`) is left out, never stored as a value. */
export function importedDefaults(
  defaults: Readonly<Record<string, string | number | boolean>>,
): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(defaults).filter(([, v]) => v !== MASKED));
}
