import { and, eq, inArray, lt } from "drizzle-orm";
import type { Page } from "playwright-core";
import { APPROVED_LATE_REQUEST_MS, type OutboundGuard } from "../../browser/network-guard.js";
import { summarizeNodes } from "../../domain/aria-snapshot.js";
import type { CuExecution } from "../../domain/computer-use.js";
import { ActionRefusedError } from "../../lane-errors.js";
import { cuActions } from "../../store/lanes-schema.js";
import { SECRET_FIELDS_CSS } from "../sessions/session-verbs.js";
import { actionRow, cuSessionRow } from "./cu-sessions.js";
import { type EvidenceRow, saveScreenshot, toEvidence } from "./evidence.js";
import { accessibilityNodes, pageAccess } from "./page-access.js";
import { performAction } from "./perform.js";
import type { ComputerUseResources } from "./resources.js";
import { type ActionRow, toAction } from "./views.js";

/** How long after an action a request it started late (a submit, a frame navigation) is waited for (ms). */
const LATE_REQUEST_MS = 150;

type Result = Omit<CuExecution, "action">;

function answer(row: ActionRow, result: Result): CuExecution {
  return { action: toAction(row), ...result };
}

/** Refuses an action a person has not approved when it needs it, or rejected. @throws CONFIRMATION_REQUIRED, ACTION_REJECTED */
function assertMayRun(row: ActionRow): void {
  if (row.status === "rejected") {
    throw new ActionRefusedError(
      "ACTION_REJECTED",
      `Action ${row.id} was rejected; it will not run. Preview a new action.`,
      {
        status: row.status,
      },
    );
  }
  if (row.requireConfirmation && row.status === "proposed") {
    throw new ActionRefusedError(
      "CONFIRMATION_REQUIRED",
      `Action ${row.id} is ${row.riskLevel} risk: confirm it (POST …/confirm/${row.id} {"approved": true}) before executing it.`,
      { risk_level: row.riskLevel, status: row.status },
    );
  }
}

/**
 * The one execution's claim: a compare-and-set from `proposed` (actions that need no confirmation) or
 * `approved` to `executing`. Of concurrent executes — in one process or several — exactly one wins.
 */
async function claim(r: ComputerUseResources, row: ActionRow, token: string): Promise<ActionRow | undefined> {
  const from: ActionRow["status"][] = row.requireConfirmation ? ["approved"] : ["proposed", "approved"];
  const at = r.now();
  const [claimed] = await r.db
    .update(cuActions)
    .set({ status: "executing", claimedBy: token, claimedAt: at, updatedAt: at })
    .where(and(eq(cuActions.id, row.id), inArray(cuActions.status, from)))
    .returning();
  return claimed;
}

/** Runs `fn` after every earlier execution of the session (executions of one session never overlap). */
function serialised<T>(r: ComputerUseResources, cusId: string, fn: () => Promise<T>): Promise<T> {
  const previous = r.chains.get(cusId) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(fn);
  const tail = next.catch(() => undefined);
  r.chains.set(cusId, tail);
  void tail.then(() => {
    if (r.chains.get(cusId) === tail) r.chains.delete(cusId);
  });
  return next;
}

async function capture(
  r: ComputerUseResources,
  page: Page,
  cusId: string,
  actionId: string,
  kind: EvidenceRow["kind"],
) {
  const nodes = await accessibilityNodes(page);
  const data = await page.screenshot({ type: "png", mask: [page.locator(SECRET_FIELDS_CSS)] });
  const url = page.url();
  const summary = summarizeNodes(nodes, 1500);
  const row = await saveScreenshot(
    r,
    cusId,
    actionId,
    kind,
    { data, mimeType: "image/png" },
    { url, summary },
  );
  return { row, url, summary };
}

/** What the context's outbound guard refused during the action, as the action's error. */
function refusedBy(outbound: OutboundGuard): string | undefined {
  if (outbound.denied !== undefined) {
    const d = outbound.denied;
    return `OUTBOUND_DENIED: requests to ${d.host} are denied (${d.rule})`;
  }
  if (outbound.blockedProvider !== undefined)
    return `PROVIDER_PROTECTED: a request to the protected provider ${outbound.blockedProvider} was stopped; it needs a confirmed action`;
  return undefined;
}

/** Performs the claimed action with before/after evidence and stores its result. */
async function run(r: ComputerUseResources, claimed: ActionRow, token: string): Promise<CuExecution> {
  const cus = await cuSessionRow(r, claimed.cuSessionId);
  const startedAt = r.now();
  let result: Result;
  try {
    const { page, outbound } = await pageAccess(r, cus.id, cus.sessionId);
    const before = await capture(r, page, cus.id, claimed.id, "before_screenshot");
    let error: string | null = null;
    // A person confirmed this action: it may reach a protected provider (nothing else may).
    const approved = claimed.confirmation?.approved === true;
    const lateMs = approved ? APPROVED_LATE_REQUEST_MS : LATE_REQUEST_MS;
    Object.assign(outbound, { approved, blockedProvider: undefined, denied: undefined });
    let after: Awaited<ReturnType<typeof capture>>;
    try {
      try {
        await performAction(page, claimed, { timeoutMs: r.actionTimeoutMs, lateMs });
      } catch (err) {
        error = err instanceof Error ? (err.message.split("\n")[0] ?? err.message) : String(err);
      }
      // A request the action started late (a form's submit, a frame's navigation) is judged as part of
      // it: the approval ends only after the "after" capture.
      await outbound.settled(lateMs);
      error = refusedBy(outbound) ?? error;
      after = await capture(r, page, cus.id, claimed.id, "after_screenshot");
    } finally {
      outbound.approved = false;
    }
    result = {
      ok: error === null,
      error,
      url_before: before.url,
      url_after: after.url,
      accessibility_summary: after.summary,
      evidence: [toEvidence(before.row), toEvidence(after.row)],
      started_at: new Date(startedAt).toISOString(),
      finished_at: new Date(r.now()).toISOString(),
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    result = {
      ok: false,
      error: `The page could not be reached: ${message}`,
      url_before: null,
      url_after: null,
      accessibility_summary: null,
      evidence: [],
      started_at: new Date(startedAt).toISOString(),
      finished_at: new Date(r.now()).toISOString(),
    };
  }
  const [done] = await r.db
    .update(cuActions)
    .set({ status: result.ok ? "executed" : "failed", result, updatedAt: r.now() })
    .where(and(eq(cuActions.id, claimed.id), eq(cuActions.claimedBy, token)))
    .returning();
  return answer(done ?? claimed, result);
}

/** Ends a claim whose process never finished it (it stopped mid-action): the outcome is unknown. */
async function expireStaleClaim(r: ComputerUseResources, row: ActionRow): Promise<void> {
  const at = r.now();
  const result: Result = {
    ok: false,
    error:
      "The process executing this action stopped before it finished; its outcome is unknown. Check the page and preview again.",
    url_before: null,
    url_after: null,
    accessibility_summary: null,
    evidence: [],
    started_at: new Date(row.claimedAt ?? at).toISOString(),
    finished_at: new Date(at).toISOString(),
  };
  await r.db
    .update(cuActions)
    .set({ status: "failed", result, updatedAt: at })
    .where(
      and(
        eq(cuActions.id, row.id),
        eq(cuActions.status, "executing"),
        lt(cuActions.claimedAt, at - r.staleClaimMs),
      ),
    );
}

/**
 * Executes a proposed action once: a second call answers the first result, concurrent calls wait for the
 * one in flight (a compare-and-set claim in the database), and executions of one session run one at a
 * time. `high` and `critical` actions need an approval first.
 * @throws CU_SESSION_NOT_FOUND, ACTION_NOT_FOUND, CONFIRMATION_REQUIRED, ACTION_REJECTED
 */
export async function executeAction(
  r: ComputerUseResources,
  cusId: string,
  actionId: string,
): Promise<CuExecution> {
  await cuSessionRow(r, cusId);
  const token = r.newId(r.owner);
  for (;;) {
    const row = await actionRow(r, cusId, actionId);
    if ((row.status === "executed" || row.status === "failed") && row.result !== null)
      return answer(row, row.result);
    assertMayRun(row);
    if (row.status === "executing") {
      if ((row.claimedAt ?? 0) < r.now() - r.staleClaimMs) await expireStaleClaim(r, row);
      else await new Promise((resolve) => setTimeout(resolve, r.waitPollMs));
      continue;
    }
    await r.raceHooks.beforeClaim?.(row.id);
    const claimed = await claim(r, row, token);
    if (claimed === undefined) continue;
    return serialised(r, cusId, () => run(r, claimed, token));
  }
}
