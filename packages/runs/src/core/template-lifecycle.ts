import { assertJsonDepth, type Tx } from "@vetted/store";
import { and, asc, desc, eq, ne } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { z } from "zod";
import { FlowInput } from "../domain/flow.js";
import type { Template } from "../domain/template.js";
import {
  exportTemplate,
  ForkInput,
  importedDefaults,
  inferParams,
  PromoteInput,
  promotedDefaults,
  TemplateExport,
  type TemplateHistory,
} from "../domain/template-lifecycle.js";
import { canMoveTemplate } from "../domain/template-status.js";
import { assertStepPatterns } from "../domain/user-patterns.js";
import {
  FlowNotFoundError,
  RunNotPromotableError,
  TemplateNotFoundError,
  TemplateStatusError,
} from "../kernel/errors.js";
import { flows, flowVersions, templates } from "../store/schema.js";
import { flowAt } from "./flows.js";
import { loadRun, parseInput } from "./persist.js";
import type { RunsResources } from "./resources.js";
import { checkTemplate, insertTemplate, type TemplateLineage, type TemplateRow } from "./template-rows.js";
import { toTemplate } from "./views.js";

/** Race-simulation hooks for tests: called between the steps of a multi-statement verb. */
export interface TemplateLifecycleHooks {
  /** After mark-recommended cleared the family's other recommended versions, before it sets this one. */
  afterRecommendedCleared?: () => Promise<void>;
}

async function templateRow(tx: Tx | LibSQLDatabase, templateId: string): Promise<TemplateRow> {
  const [row] = await tx.select().from(templates).where(eq(templates.id, templateId)).limit(1);
  if (row === undefined) throw new TemplateNotFoundError(templateId);
  return row;
}

function familyOf(row: TemplateRow): string {
  return row.familyId === "" ? row.id : row.familyId;
}

/**
 * Makes `row` its family's active version: the family's active version (if another) becomes `superseded`
 * first, so the one-active-per-family index holds. @throws TEMPLATE_STATUS_CONFLICT
 */
async function activateRow(r: RunsResources, tx: Tx, row: TemplateRow): Promise<TemplateRow> {
  if (row.status === "active") return row;
  if (!canMoveTemplate(row.status, "active")) {
    throw new TemplateStatusError(`Template ${row.id} is ${row.status}; it cannot be activated.`, {
      status: row.status,
    });
  }
  const at = r.now();
  const family = familyOf(row);
  await tx
    .update(templates)
    .set({ status: "superseded", updatedAt: at })
    .where(and(eq(templates.familyId, family), eq(templates.status, "active"), ne(templates.id, row.id)));
  const [updated] = await tx
    .update(templates)
    .set({ status: "active", updatedAt: at })
    .where(eq(templates.id, row.id))
    .returning();
  if (updated === undefined) throw new TemplateNotFoundError(row.id);
  return updated;
}

/** The template a promotion creates: from a successful run (its params as defaults) or from a flow. */
async function promotionOf(tx: Tx, p: z.output<typeof PromoteInput>): Promise<unknown> {
  const base = { name: p.template_name };
  if (p.run_id === undefined) {
    const flowId = p.flow_id ?? "";
    const flow = await flowAt(tx, flowId, null);
    return { ...base, flow_id: flowId, flow_version: flow.version, params_schema: inferParams(flow.steps) };
  }
  const run = await loadRun(tx, p.run_id);
  if (run.status !== "success") {
    throw new RunNotPromotableError(
      `Run ${run.id} is ${run.status}; only a run that succeeded can be promoted to a template.`,
      { status: run.status },
    );
  }
  const source =
    run.templateId === null
      ? undefined
      : await tx.select().from(templates).where(eq(templates.id, run.templateId)).limit(1);
  const specs = source?.[0]?.paramsSchema ?? inferParams(run.steps);
  return {
    ...base,
    flow_id: run.flowId,
    flow_version: run.flowVersion,
    params_schema: specs,
    defaults: promotedDefaults(specs, run.params),
    policies: run.policies,
  };
}

/**
 * Promotes a successful run (its params become defaults, secrets dropped) or a flow (params inferred from
 * its steps) to a new template family, `active`, at family version 1.
 * @throws REQUEST_INVALID, RUN_NOT_FOUND, FLOW_NOT_FOUND, RUN_NOT_PROMOTABLE, TEMPLATE_INVALID
 */
export async function promoteTemplate(r: RunsResources, input: PromoteInput): Promise<Template> {
  const p = parseInput(PromoteInput, input, "REQUEST_INVALID", "The promotion");
  const id = r.newId("tpl");
  return r.write(async (tx) => {
    const t = checkTemplate(await promotionOf(tx, p));
    const line = { familyId: id, parentTemplateId: null, familyVersion: 1, status: "active" as const };
    return toTemplate(
      await insertTemplate(tx, id, t, { ...line, changeNote: p.change_note ?? null }, r.now()),
    );
  });
}

/**
 * A new version in the template's family: a copy of it with the given changes, `draft` — or `active` with
 * `activate: true`, which supersedes the family's active version.
 * @throws TEMPLATE_NOT_FOUND, TEMPLATE_INVALID, FLOW_NOT_FOUND, TEMPLATE_STATUS_CONFLICT
 */
export async function forkTemplateVersion(
  r: RunsResources,
  templateId: string,
  input: ForkInput,
): Promise<Template> {
  assertJsonDepth(input, "The fork");
  const f = parseInput(ForkInput, input, "TEMPLATE_INVALID", "The fork");
  const id = r.newId("tpl");
  return r.write(async (tx) => {
    const parent = await templateRow(tx, templateId);
    if (parent.status === "archived") {
      throw new TemplateStatusError(`Template ${parent.id} is archived; fork an unarchived version.`, {
        status: parent.status,
      });
    }
    const flowVersion = f.flow_version ?? parent.flowVersion;
    const t = checkTemplate({
      name: f.name ?? parent.name,
      flow_id: parent.flowId,
      ...(flowVersion === null ? {} : { flow_version: flowVersion }),
      params_schema: f.params_schema ?? parent.paramsSchema,
      defaults: f.defaults ?? parent.defaults,
      policies: f.policies ?? parent.policies,
    });
    await flowAt(tx, t.flow_id, t.flow_version ?? null);
    const family = familyOf(parent);
    const [last] = await tx
      .select({ v: templates.familyVersion })
      .from(templates)
      .where(eq(templates.familyId, family))
      .orderBy(desc(templates.familyVersion))
      .limit(1);
    const line: TemplateLineage = {
      familyId: family,
      parentTemplateId: parent.id,
      familyVersion: (last?.v ?? 0) + 1,
      status: "draft",
      changeNote: f.change_note ?? null,
    };
    const row = await insertTemplate(tx, id, t, line, r.now());
    return toTemplate(f.activate ? await activateRow(r, tx, row) : row);
  });
}

/** Makes a version its family's active one (the previous active version becomes `superseded`). @throws TEMPLATE_NOT_FOUND, TEMPLATE_STATUS_CONFLICT */
export async function activateTemplate(r: RunsResources, templateId: string): Promise<Template> {
  return r.write(async (tx) => toTemplate(await activateRow(r, tx, await templateRow(tx, templateId))));
}

/** Archives a version (it stops being recommended). @throws TEMPLATE_NOT_FOUND */
export async function archiveTemplate(r: RunsResources, templateId: string): Promise<Template> {
  return r.write(async (tx) => {
    const row = await templateRow(tx, templateId);
    if (row.status === "archived") return toTemplate(row);
    const [updated] = await tx
      .update(templates)
      .set({ status: "archived", recommended: false, updatedAt: r.now() })
      .where(eq(templates.id, row.id))
      .returning();
    return toTemplate(updated ?? row);
  });
}

/**
 * Marks a version as its family's recommended one and clears the mark on every other version, in one
 * write transaction: of concurrent marks (in one process or several), the last to commit wins and the
 * family never has two. @throws TEMPLATE_NOT_FOUND, TEMPLATE_STATUS_CONFLICT
 */
export async function markRecommended(
  r: RunsResources,
  templateId: string,
  hooks: TemplateLifecycleHooks = {},
): Promise<Template> {
  return r.write(async (tx) => {
    const row = await templateRow(tx, templateId);
    if (row.status === "archived") {
      throw new TemplateStatusError(`Template ${row.id} is archived; it cannot be recommended.`, {
        status: row.status,
      });
    }
    const at = r.now();
    await tx
      .update(templates)
      .set({ recommended: false, updatedAt: at })
      .where(
        and(eq(templates.familyId, familyOf(row)), eq(templates.recommended, true), ne(templates.id, row.id)),
      );
    await hooks.afterRecommendedCleared?.();
    const [updated] = await tx
      .update(templates)
      .set({ recommended: true, updatedAt: at })
      .where(eq(templates.id, row.id))
      .returning();
    return toTemplate(updated ?? row);
  });
}

/** Every version of the template's family, oldest first. @throws TEMPLATE_NOT_FOUND */
export async function templateHistory(r: RunsResources, templateId: string): Promise<TemplateHistory> {
  const row = await templateRow(r.db, templateId);
  const family = familyOf(row);
  const rows = await r.db
    .select()
    .from(templates)
    .where(eq(templates.familyId, family))
    .orderBy(asc(templates.familyVersion));
  const items = rows.map(toTemplate);
  return {
    template_family_id: family,
    active_template_id: items.find((t) => t.status === "active")?.id ?? null,
    recommended_template_id: items.find((t) => t.recommended)?.id ?? null,
    items,
  };
}

/** The template as portable JSON (its flow's steps included, secret-looking defaults `***`). @throws TEMPLATE_NOT_FOUND, FLOW_NOT_FOUND */
export async function exportTemplateJson(r: RunsResources, templateId: string) {
  const row = await templateRow(r.db, templateId);
  const [flow] =
    row.flowVersion === null
      ? await r.db.select().from(flows).where(eq(flows.id, row.flowId)).limit(1)
      : await r.db
          .select()
          .from(flowVersions)
          .where(and(eq(flowVersions.flowId, row.flowId), eq(flowVersions.version, row.flowVersion)))
          .limit(1);
  if (flow === undefined) throw new FlowNotFoundError(row.flowId);
  return exportTemplate(toTemplate(row), flow, new Date(r.now()).toISOString());
}

/**
 * Imports an export: a new flow from its steps and a new template family over it, `active`; masked
 * defaults (`***`) are left out. All or nothing. @throws TEMPLATE_INVALID, FLOW_INVALID, REGEX_INVALID
 */
export async function importTemplate(r: RunsResources, input: TemplateExport): Promise<Template> {
  assertJsonDepth(input, "The template");
  const e = parseInput(TemplateExport, input, "TEMPLATE_INVALID", "The template export");
  const flow = parseInput(FlowInput, e.flow, "FLOW_INVALID", "The exported flow");
  assertStepPatterns(flow.steps);
  const flowId = r.newId("flow");
  const id = r.newId("tpl");
  const t = checkTemplate({
    name: e.name,
    flow_id: flowId,
    flow_version: 1,
    params_schema: e.params_schema,
    defaults: importedDefaults(e.defaults),
    policies: e.policies,
  });
  const at = r.now();
  return r.write(async (tx) => {
    await tx
      .insert(flows)
      .values({ id: flowId, name: flow.name, version: 1, steps: flow.steps, createdAt: at, updatedAt: at });
    await tx
      .insert(flowVersions)
      .values({ flowId, version: 1, name: flow.name, steps: flow.steps, createdAt: at });
    const line: TemplateLineage = {
      familyId: id,
      parentTemplateId: null,
      familyVersion: 1,
      status: "active",
      changeNote: e.change_note ?? null,
    };
    return toTemplate(await insertTemplate(tx, id, t, line, r.now()));
  });
}

/** True when the body of `POST /api/templates` is an export (it carries `format`). */
export function isTemplateExport(body: unknown): body is TemplateExport {
  return typeof body === "object" && body !== null && Object.hasOwn(body, "format");
}

/** The lifecycle verbs over `r`, with optional race-simulation hooks. */
export function createTemplateLifecycle(r: RunsResources, hooks: TemplateLifecycleHooks = {}) {
  return {
    promoteTemplate: (input: PromoteInput) => promoteTemplate(r, input),
    forkTemplateVersion: (templateId: string, input: ForkInput) => forkTemplateVersion(r, templateId, input),
    activateTemplate: (templateId: string) => activateTemplate(r, templateId),
    archiveTemplate: (templateId: string) => archiveTemplate(r, templateId),
    markRecommended: (templateId: string) => markRecommended(r, templateId, hooks),
    templateHistory: (templateId: string) => templateHistory(r, templateId),
    exportTemplate: (templateId: string) => exportTemplateJson(r, templateId),
    importTemplate: (input: TemplateExport) => importTemplate(r, input),
  };
}
