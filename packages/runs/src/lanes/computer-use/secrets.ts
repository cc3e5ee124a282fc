import type { Page } from "playwright-core";
import { SECRET_SHOWN } from "../../domain/cu-secrets.js";
import { ActionRefusedError, InstructionNotUnderstoodError } from "../../kernel/lane-errors.js";
import { createRedactor, type Redactor } from "../../kernel/redactor.js";
import { secretValues } from "./reach.js";
import type { ComputerUseResources } from "./resources.js";
import type { ActionRow, CuSessionRow } from "./views.js";

/*
 * Typed secrets at rest: the text a `type` action types into a password or card field is sealed with the
 * secrets key (bound to its action), the instruction holding it too (bound to its session); what is
 * stored in plain and answered shows `[redacted]` instead.
 */

/** The sealing context of a session's instruction. */
export function instructionContext(cusId: string): string {
  return `cu:${cusId}:instruction`;
}

/** The sealing context of an action's typed secret. */
export function secretContext(actionId: string): string {
  return `cu:${actionId}:text`;
}

/** The session's instruction as written (opened when sealed). @throws INSTRUCTION_NOT_UNDERSTOOD */
export function instructionOf(r: ComputerUseResources, cus: CuSessionRow): string {
  if (cus.instructionSealed === null) return cus.instruction;
  const plain = r.box.open(cus.instructionSealed, instructionContext(cus.id));
  if (plain === undefined) {
    throw new InstructionNotUnderstoodError(
      `The instruction of ${cus.id} types a secret and was sealed with a key this engine does not hold (it restarted without VETTED_SECRETS_KEY?): create the session again.`,
    );
  }
  return plain;
}

/**
 * The action as it is performed: its secret text opened into `args.text`.
 * @throws PREVIEW_STALE when the secret no longer opens (sealed by an engine with another key)
 */
export function performable(r: ComputerUseResources, row: ActionRow): ActionRow {
  if (row.secretSealed === null) return row;
  const text = r.box.open(row.secretSealed, secretContext(row.id));
  if (text === undefined) {
    throw new ActionRefusedError(
      "PREVIEW_STALE",
      `Action ${row.id} types a secret sealed with a key this engine does not hold (it restarted without VETTED_SECRETS_KEY?): preview it again.`,
    );
  }
  return { ...row, args: { ...row.args, text } };
}

/** The action's secret text, when it still holds one (not yet executed). */
export function secretOf(r: ComputerUseResources, row: ActionRow): string | undefined {
  return row.secretSealed === null ? undefined : r.box.open(row.secretSealed, secretContext(row.id));
}

/**
 * A redactor for what is stored of the page now: the values in its secret fields (every frame) and the
 * secrets `known` (the text an action types).
 */
export async function pageRedactor(page: Page, known: ReadonlyArray<string | undefined>): Promise<Redactor> {
  const values = [...(await secretValues(page)), ...known].filter(
    (v): v is string => v !== undefined && v.length > 0 && v !== SECRET_SHOWN,
  );
  return createRedactor(values);
}
