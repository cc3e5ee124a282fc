import { assertJsonDepth, type Tx } from "@vetted/store";
import type { z } from "zod";
import { TemplateInput } from "../domain/template.js";
import type { TemplateStatus } from "../domain/template-status.js";
import { assertParamPatterns } from "../domain/user-patterns.js";
import { TemplateNotFoundError } from "../kernel/errors.js";
import { templates } from "../store/schema.js";
import { parseInput } from "./persist.js";

/** A stored template row. */
export type TemplateRow = typeof templates.$inferSelect;
/** A template input once parsed and checked. */
export type ParsedTemplate = z.output<typeof TemplateInput>;

/** Where a new template row sits in its family. */
export interface TemplateLineage {
  familyId: string;
  parentTemplateId: string | null;
  familyVersion: number;
  status: TemplateStatus;
  changeNote: string | null;
}

/** A template's whole input, parsed and its param patterns checked. @throws TEMPLATE_INVALID, REGEX_INVALID */
export function checkTemplate(input: unknown): ParsedTemplate {
  assertJsonDepth(input, "The template");
  const t = parseInput(TemplateInput, input, "TEMPLATE_INVALID", "The template");
  assertParamPatterns(t.params_schema);
  return t;
}

/** Inserts a new template row (edit version 1, not recommended) at `at`, in `tx`. */
export async function insertTemplate(
  tx: Tx,
  id: string,
  t: ParsedTemplate,
  line: TemplateLineage,
  at: number,
): Promise<TemplateRow> {
  const [row] = await tx
    .insert(templates)
    .values({
      id,
      name: t.name,
      flowId: t.flow_id,
      flowVersion: t.flow_version ?? null,
      paramsSchema: t.params_schema,
      defaults: t.defaults,
      policies: t.policies,
      version: 1,
      createdAt: at,
      updatedAt: at,
      ...line,
      recommended: false,
    })
    .returning();
  if (row === undefined) throw new TemplateNotFoundError(id);
  return row;
}
