import { createHash } from "node:crypto";
import { runTransaction } from "@vetted/store";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Page } from "playwright-core";
import { summarizeNodes } from "../../domain/aria-snapshot.js";
import {
  actionStatesInto,
  type CuAction,
  type CuConfirmInput,
  type CuEvidence,
  type CuPreviewInput,
  type CuSession,
  CuSessionInput,
  MAX_SCREENSHOT_BYTES,
} from "../../domain/computer-use.js";
import type { PlannedAction } from "../../domain/cu-grammar.js";
import { isSecretField, SECRET_SHOWN, secretInstructionShown } from "../../domain/cu-secrets.js";
import { classifyRisk } from "../../domain/risk.js";
import { InvalidInputError } from "../../kernel/errors.js";
import {
  ActionRefusedError,
  ComputerUseNotFoundError,
  InstructionNotUnderstoodError,
  PlannerError,
  ScreenshotRefusedError,
} from "../../kernel/lane-errors.js";
import { createRedactor } from "../../kernel/redactor.js";
import { cuActions, cuSessions } from "../../store/lanes-schema.js";
import { evidenceRows, saveScreenshot, toEvidence } from "./evidence.js";
import { accessibilityNodes, pageOf } from "./page-access.js";
import { fieldFacts, maskedScreenshot, type Reach, readReach } from "./reach.js";
import type { ComputerUseResources } from "./resources.js";
import { instructionContext, instructionOf, pageRedactor, secretContext } from "./secrets.js";
import { type ActionRow, type CuSessionRow, toAction, toCuSession } from "./views.js";

/** The computer-use session row. @throws CU_SESSION_NOT_FOUND */
export async function cuSessionRow(r: ComputerUseResources, id: string): Promise<CuSessionRow> {
  const [row] = await r.db.select().from(cuSessions).where(eq(cuSessions.id, id)).limit(1);
  if (row === undefined) throw new ComputerUseNotFoundError("CU_SESSION_NOT_FOUND", id);
  return row;
}

/** The action row of a session. @throws ACTION_NOT_FOUND */
export async function actionRow(
  r: ComputerUseResources,
  cusId: string,
  actionId: string,
): Promise<ActionRow> {
  const [row] = await r.db
    .select()
    .from(cuActions)
    .where(and(eq(cuActions.id, actionId), eq(cuActions.cuSessionId, cusId)))
    .limit(1);
  if (row === undefined) throw new ComputerUseNotFoundError("ACTION_NOT_FOUND", actionId, cusId);
  return row;
}

/**
 * Creates a computer-use session for an instruction, acting in a live recording session (`session_id`) or
 * in a page of its own. @throws REQUEST_INVALID, SESSION_NOT_FOUND, SESSION_NOT_ACTIVE, PLANNER_UNAVAILABLE
 */
export async function createCuSession(r: ComputerUseResources, input: CuSessionInput): Promise<CuSession> {
  const parsed = CuSessionInput.safeParse(input);
  if (!parsed.success)
    throw new InvalidInputError(
      "REQUEST_INVALID",
      "The computer-use request is invalid.",
      parsed.error.issues,
    );
  const body = parsed.data;
  if (body.planner === "openai" && r.planners.openai === undefined) {
    throw new PlannerError(
      "PLANNER_UNAVAILABLE",
      'No OpenAI-compatible planner is configured: set VETTED_CU_PLANNER_URL and VETTED_CU_PLANNER_MODEL (and VETTED_CU_PLANNER_API_KEY), or use planner "local".',
    );
  }
  if (body.session_id !== undefined) await r.sessions.livePage(body.session_id);
  const at = r.now();
  const id = r.newId("cus");
  // An instruction typing into a field named as secret is kept sealed from the start.
  const shown = secretInstructionShown(body.instruction);
  const row: CuSessionRow = {
    id,
    instruction: shown ?? body.instruction,
    instructionSealed: shown === undefined ? null : r.box.seal(body.instruction, instructionContext(id)),
    sessionId: body.session_id ?? null,
    planner: body.planner,
    metadata: body.metadata ?? {},
    actionCount: 0,
    createdAt: at,
    updatedAt: at,
  };
  await runTransaction(r.db, (tx) => tx.insert(cuSessions).values(row));
  return toCuSession(row);
}

/** A computer-use session. @throws CU_SESSION_NOT_FOUND */
export async function getCuSession(r: ComputerUseResources, id: string): Promise<CuSession> {
  return toCuSession(await cuSessionRow(r, id));
}

/** The screenshot a preview brings: a data: URL, or bare base64 with its `image/*` MIME type. */
function decodeScreenshot(input: CuPreviewInput): { data: Buffer; mimeType: string } | undefined {
  const raw = input.screenshot_base64;
  if (raw === undefined) return undefined;
  const dataUrl = /^data:([^;,]+);base64,(.*)$/s.exec(raw);
  const mimeType = (dataUrl?.[1] ?? input.screenshot_mime_type ?? "").toLowerCase();
  const b64 = (dataUrl?.[2] ?? raw).replace(/\s+/g, "");
  if (!/^image\/[a-z0-9.+-]+$/.test(mimeType)) {
    throw new ScreenshotRefusedError(
      "SCREENSHOT_INVALID",
      "screenshot_base64 needs an image/* MIME type: send a data:image/png;base64,… URL or set screenshot_mime_type.",
    );
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length === 0) {
    throw new ScreenshotRefusedError("SCREENSHOT_INVALID", "screenshot_base64 is not base64.");
  }
  const data = Buffer.from(b64, "base64");
  if (data.length > MAX_SCREENSHOT_BYTES) {
    throw new ScreenshotRefusedError(
      "SCREENSHOT_TOO_LARGE",
      `The screenshot is ${data.length} bytes; at most ${MAX_SCREENSHOT_BYTES} (8 MiB).`,
    );
  }
  return { data, mimeType };
}

/**
 * The text a `type` action types when it is secret: the session's instruction was sealed (it names a
 * secret field), or the page tells the field is a password or card field.
 */
async function secretTyped(
  page: Page,
  cus: CuSessionRow,
  action: PlannedAction,
): Promise<string | undefined> {
  if (action.name !== "type" || typeof action.args.text !== "string") return undefined;
  if (cus.instructionSealed !== null || isSecretField(await fieldFacts(page, action)))
    return action.args.text;
  return undefined;
}

/** The session's instruction sealed, once a preview found it types a secret its field name did not tell. */
async function sealInstruction(
  r: ComputerUseResources,
  cus: CuSessionRow,
  instruction: string,
  secret: string,
) {
  if (cus.instructionSealed !== null) return;
  await r.db
    .update(cuSessions)
    .set({
      instruction: createRedactor([secret]).redactText(instruction),
      instructionSealed: r.box.seal(instruction, instructionContext(cus.id)),
    })
    .where(eq(cuSessions.id, cus.id));
}

function digestOf(cusId: string, name: string, args: Record<string, unknown>, pageUrl: string): string {
  return createHash("sha256")
    .update(JSON.stringify({ cus: cusId, name, args, page: pageUrl }))
    .digest("hex");
}

/**
 * Proposes one action for the session's instruction on its live page: the planner reads the page's
 * accessibility tree (and the caller's screenshot, or a fresh one), the engine classifies its risk.
 * @throws CU_SESSION_NOT_FOUND, INSTRUCTION_NOT_UNDERSTOOD, SCREENSHOT_INVALID, SCREENSHOT_TOO_LARGE
 */
export async function previewAction(
  r: ComputerUseResources,
  cusId: string,
  input: CuPreviewInput = {},
): Promise<CuAction> {
  const cus = await cuSessionRow(r, cusId);
  const given = decodeScreenshot(input);
  const instruction = instructionOf(r, cus);
  const page = await pageOf(r, cusId, cus.sessionId);
  const nodes = await accessibilityNodes(page);
  const pageUrl = page.url();
  const screenshot = given ?? { data: await maskedScreenshot(page), mimeType: "image/png" };
  const planner = cus.planner === "openai" ? r.planners.openai : r.planners.local;
  if (planner === undefined)
    throw new PlannerError("PLANNER_UNAVAILABLE", "The OpenAI-compatible planner is no longer configured.");
  const plan = await planner.plan({
    instruction,
    pageUrl,
    nodes,
    screenshot,
    signal: AbortSignal.timeout(60_000),
  });
  if (!plan.ok) throw new InstructionNotUnderstoodError(plan.message);
  const { action } = plan;
  // Judged by what the action would reach on the live page, read again when it executes.
  const reach: Reach = await readReach(page, action);
  const risk = classifyRisk({
    name: action.name,
    args: action.args,
    instruction,
    frameUrl: action.frameUrl ?? pageUrl,
    targetName: action.targetName,
    targets: reach.targets,
    protectedDomains: r.protectedDomains,
  });
  const secret = await secretTyped(page, cus, action);
  const args = secret === undefined ? action.args : { ...action.args, text: SECRET_SHOWN };
  const redactor = await pageRedactor(page, [secret]);
  const at = r.now();
  const id = r.newId("act");
  const row: ActionRow = {
    id,
    cuSessionId: cusId,
    seq: cus.actionCount + 1,
    name: action.name,
    args,
    secretSealed: secret === undefined ? null : r.box.seal(secret, secretContext(id)),
    reach,
    rationale: redactor.redactText(action.rationale),
    riskLevel: risk.level,
    requireConfirmation: risk.require_confirmation,
    actionDigest: digestOf(cusId, action.name, args, pageUrl),
    providerDomain: risk.provider_domain ?? null,
    status: "proposed",
    confirmation: null,
    result: null,
    claimedBy: null,
    claimedAt: null,
    createdAt: at,
    updatedAt: at,
  };
  if (secret !== undefined) await sealInstruction(r, cus, instruction, secret);
  await runTransaction(r.db, async (tx) => {
    await tx.insert(cuActions).values(row);
    await tx
      .update(cuSessions)
      .set({ actionCount: sql`${cuSessions.actionCount} + 1`, updatedAt: at })
      .where(eq(cuSessions.id, cusId));
  });
  await saveScreenshot(r, cusId, row.id, "preview_screenshot", screenshot, {
    url: redactor.redactText(pageUrl),
    summary: redactor.redactText(summarizeNodes(nodes, 1500)),
  });
  return toAction(row);
}

/**
 * Records a person's decision on a proposed action (compare-and-set on `proposed`).
 * @throws CU_SESSION_NOT_FOUND, ACTION_NOT_FOUND, ACTION_ALREADY_DECIDED
 */
export async function confirmAction(
  r: ComputerUseResources,
  cusId: string,
  actionId: string,
  input: CuConfirmInput,
): Promise<CuAction> {
  await cuSessionRow(r, cusId);
  await actionRow(r, cusId, actionId);
  const at = r.now();
  const [updated] = await r.db
    .update(cuActions)
    .set({
      status: input.approved ? "approved" : "rejected",
      confirmation: { approved: input.approved, reason: input.confirmation_reason ?? null, at },
      updatedAt: at,
    })
    .where(
      and(
        eq(cuActions.id, actionId),
        inArray(cuActions.status, actionStatesInto(input.approved ? "approved" : "rejected")),
      ),
    )
    .returning();
  if (updated !== undefined) return toAction(updated);
  const now = await actionRow(r, cusId, actionId);
  throw new ActionRefusedError(
    "ACTION_ALREADY_DECIDED",
    `Action ${actionId} is already ${now.status}; preview a new action to act again.`,
    {
      status: now.status,
    },
  );
}

/** Every piece of evidence of a session, oldest first. @throws CU_SESSION_NOT_FOUND */
export async function listEvidence(r: ComputerUseResources, cusId: string): Promise<CuEvidence[]> {
  await cuSessionRow(r, cusId);
  return (await evidenceRows(r, cusId)).map(toEvidence);
}
