import { assertJsonDepth, type KeysetPage } from "@vetted/store";
import { desc, eq } from "drizzle-orm";
import type { z } from "zod";
import { type Template, TemplateInput, TemplatePatch } from "../domain/template.js";
import { assertParamPatterns } from "../domain/user-patterns.js";
import { TemplateNotFoundError, VersionConflictError } from "../kernel/errors.js";
import { templates } from "../store/schema.js";
import { flowAt } from "./flows.js";
import { type ListQuery, newestFirstAfter, newestFirstPage, pageLimit } from "./lists.js";
import { parseInput } from "./persist.js";
import type { RunsResources } from "./resources.js";
import { checkTemplate, insertTemplate, type TemplateRow } from "./template-rows.js";
import { toTemplate } from "./views.js";

/** A patch applied over a stored template, checked again as a whole. @throws TEMPLATE_INVALID */
function mergePatch(row: TemplateRow, p: z.output<typeof TemplatePatch>): z.output<typeof TemplateInput> {
  const flowVersion = p.flow_version ?? row.flowVersion;
  return parseInput(
    TemplateInput,
    {
      name: p.name ?? row.name,
      flow_id: row.flowId,
      ...(flowVersion === null ? {} : { flow_version: flowVersion }),
      params_schema: p.params_schema ?? row.paramsSchema,
      defaults: p.defaults ?? row.defaults,
      policies: p.policies ?? row.policies,
    },
    "TEMPLATE_INVALID",
    "The template",
  );
}

/** Stores a template over an existing flow (and version, when pinned). @throws TEMPLATE_INVALID, FLOW_NOT_FOUND */
export async function createTemplate(r: RunsResources, input: TemplateInput): Promise<Template> {
  const t = checkTemplate(input);
  const at = r.now();
  const id = r.newId("tpl");
  return r.write(async (tx) => {
    await flowAt(tx, t.flow_id, t.flow_version ?? null);
    // A new family of one: the column defaults a lifecycle-less insert got, spelled out.
    const line = {
      familyId: id,
      parentTemplateId: null,
      familyVersion: 1,
      status: "active",
      changeNote: null,
    } as const;
    return toTemplate(await insertTemplate(tx, id, t, line, at));
  });
}

/** One template. @throws TEMPLATE_NOT_FOUND */
export async function getTemplate(r: RunsResources, templateId: string): Promise<Template> {
  const [row] = await r.db.select().from(templates).where(eq(templates.id, templateId)).limit(1);
  if (row === undefined) throw new TemplateNotFoundError(templateId);
  return toTemplate(row);
}

/** Changes a template and bumps its version. @throws TEMPLATE_NOT_FOUND, VERSION_CONFLICT, TEMPLATE_INVALID */
export async function updateTemplate(
  r: RunsResources,
  templateId: string,
  patch: TemplatePatch,
): Promise<Template> {
  assertJsonDepth(patch, "The template");
  const p = parseInput(TemplatePatch, patch, "TEMPLATE_INVALID", "The template");
  assertParamPatterns(p.params_schema ?? []);
  const at = r.now();
  return r.write(async (tx) => {
    const [row] = await tx.select().from(templates).where(eq(templates.id, templateId)).limit(1);
    if (row === undefined) throw new TemplateNotFoundError(templateId);
    if (p.expected_version !== undefined && p.expected_version !== row.version) {
      throw new VersionConflictError(
        `The template is at version ${row.version}, not ${p.expected_version}.`,
        { version: row.version },
      );
    }
    const merged = mergePatch(row, p);
    await flowAt(tx, merged.flow_id, merged.flow_version ?? null);
    const [updated] = await tx
      .update(templates)
      .set({
        name: merged.name,
        flowVersion: merged.flow_version ?? null,
        paramsSchema: merged.params_schema,
        defaults: merged.defaults,
        policies: merged.policies,
        version: row.version + 1,
        updatedAt: at,
      })
      .where(eq(templates.id, templateId))
      .returning();
    if (updated === undefined) throw new TemplateNotFoundError(templateId);
    return toTemplate(updated);
  });
}

/** Templates, newest first. @throws CURSOR_INVALID */
export async function listTemplates(r: RunsResources, query: ListQuery = {}): Promise<KeysetPage<Template>> {
  const limit = pageLimit(query.limit);
  const rows = await r.db
    .select()
    .from(templates)
    .where(newestFirstAfter(templates, "templates", query.cursor))
    .orderBy(desc(templates.createdAt), desc(templates.id))
    .limit(limit + 1);
  return newestFirstPage(rows, limit, "templates", toTemplate);
}
