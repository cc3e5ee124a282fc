import { and, eq, inArray, lt } from "drizzle-orm";
import type { Page } from "playwright-core";
import type { OutboundGuard } from "../../core/browser/network-guard.js";
import { summarizeNodes } from "../../domain/aria-snapshot.js";
import { APPROVED_LATE_REQUEST_MS, LATE_REQUEST_MS } from "../../domain/browser-steps.js";
import { actionStatesInto, type CuExecution } from "../../domain/computer-use.js";
import { classifyRisk } from "../../domain/risk.js";
import { ActionRefusedError } from "../../kernel/lane-errors.js";
import type { Redactor } from "../../kernel/redactor.js";
import { cuActions } from "../../store/lanes-schema.js";
import { actionRow, cuSessionRow } from "./cu-sessions.js";
import { type EvidenceRow, saveScreenshot, toEvidence } from "./evidence.js";
import { accessibilityNodes, pageAccess } from "./page-access.js";
import { performAction } from "./perform.js";
import { maskedScreenshot, reachChanged, readReach } from "./reach.js";
import type { ComputerUseResources } from "./resources.js";
import { instructionOf, pageRedactor, performable, secretOf } from "./secrets.js";
import { type ActionRow, type CuSessionRow, toAction } from "./views.js";

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
  // An action that needs a confirmation leaves only from `approved`; the others from any state the table allows.
  const into = actionStatesInto("executing");
  const from = row.requireConfirmation ? into.filter((s) => s === "approved") : into;
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

/**
 * Re-judges the claimed-to-be action on the page as it is now: the page, the frame the action acts in and
 * what it would reach must be those of its preview, and the risk they give must not need a confirmation
 * the action lacks. Nothing has run when this throws.
 * @throws PREVIEW_STALE, CONFIRMATION_REQUIRED
 */
async function assertStillPreviewed(
  r: ComputerUseResources,
  cus: CuSessionRow,
  row: ActionRow,
): Promise<void> {
  // `open` goes to its own URL whatever the page shows.
  if (row.reach === null || row.name === "open") return;
  let page: Page;
  try {
    ({ page } = await pageAccess(r, cus.id, cus.sessionId));
  } catch {
    return; // the execution records that the page could not be reached
  }
  const now = await readReach(page, row);
  if (reachChanged(row.reach, now)) {
    throw new ActionRefusedError(
      "PREVIEW_STALE",
      `The page changed since action ${row.id} was previewed (it showed ${row.reach.page_url}, now ${now.page_url}); nothing was executed. Preview the action again.`,
      { previewed: row.reach, now },
    );
  }
  const risk = classifyRisk({
    name: row.name,
    args: row.args,
    instruction: instructionOf(r, cus),
    frameUrl: now.frame_url,
    targetName: typeof row.args.name === "string" ? row.args.name : undefined,
    targets: now.targets,
    protectedDomains: r.protectedDomains,
  });
  if (risk.require_confirmation && row.status !== "approved") {
    throw new ActionRefusedError(
      "CONFIRMATION_REQUIRED",
      `Action ${row.id} is ${risk.level} risk now: confirm it (POST …/confirm/${row.id} {"approved": true}) before executing it.`,
      { risk_level: risk.level, status: row.status },
    );
  }
  // A secret sealed under a key this engine lacks cannot be typed: stale too, before anything runs.
  performable(r, row);
}

async function capture(
  r: ComputerUseResources,
  page: Page,
  ids: { cusId: string; actionId: string },
  kind: EvidenceRow["kind"],
  redactor: Redactor,
) {
  const { cusId, actionId } = ids;
  const nodes = await accessibilityNodes(page);
  const data = await maskedScreenshot(page);
  // What the page shows of a typed password or card number is kept out of the stored summary.
  const url = redactor.redactText(page.url());
  const summary = redactor.redactText(summarizeNodes(nodes, 1500));
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
    return `PROVIDER_PROTECTED: a request to the protected provider ${outbound.blockedProvider} was stopped; it needs a confirmed action: preview the action again and confirm it (POST …/confirm/{action_id} {"approved": true}) before executing it`;
  return undefined;
}

/** Performs the claimed action with before/after evidence and stores its result. */
async function run(r: ComputerUseResources, claimed: ActionRow, token: string): Promise<CuExecution> {
  const cus = await cuSessionRow(r, claimed.cuSessionId);
  const startedAt = r.now();
  let result: Result;
  try {
    const { page, outbound } = await pageAccess(r, cus.id, cus.sessionId);
    const secret = secretOf(r, claimed);
    const ids = { cusId: cus.id, actionId: claimed.id };
    const before = await capture(r, page, ids, "before_screenshot", await pageRedactor(page, [secret]));
    let error: string | null = null;
    // A person confirmed this action: it may reach a protected provider (nothing else may).
    const approved = claimed.confirmation?.approved === true;
    const lateMs = approved ? APPROVED_LATE_REQUEST_MS : LATE_REQUEST_MS;
    Object.assign(outbound, { approved, blockedProvider: undefined, denied: undefined });
    let after: Awaited<ReturnType<typeof capture>>;
    try {
      try {
        await performAction(page, performable(r, claimed), { timeoutMs: r.actionTimeoutMs, lateMs });
      } catch (err) {
        error = err instanceof Error ? (err.message.split("\n")[0] ?? err.message) : String(err);
      }
      // A request the action started late (a form's submit, a frame's navigation) is judged as part of
      // it: the approval ends only after the "after" capture.
      await outbound.settled(lateMs);
      error = refusedBy(outbound) ?? error;
      const redactor = await pageRedactor(page, [secret]);
      error = error === null ? null : redactor.redactText(error);
      after = await capture(r, page, ids, "after_screenshot", redactor);
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
    // The typed secret is in the page now; nothing keeps it, not even sealed.
    .set({ status: result.ok ? "executed" : "failed", result, secretSealed: null, updatedAt: r.now() })
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
    .set({ status: "failed", result, secretSealed: null, updatedAt: at })
    .where(
      and(
        eq(cuActions.id, row.id),
        inArray(cuActions.status, actionStatesInto("failed")),
        lt(cuActions.claimedAt, at - r.staleClaimMs),
      ),
    );
}

/**
 * Executes a proposed action once: a second call answers the first result, concurrent calls wait for the
 * one in flight (a compare-and-set claim in the database), and executions of one session run one at a
 * time. `high` and `critical` actions need an approval first.
 * Before it claims the action, the engine reads the page again: a page, frame or target other than the
 * preview's answers `PREVIEW_STALE` (nothing runs), a risk now needing a confirmation it lacks
 * `CONFIRMATION_REQUIRED`.
 * @throws CU_SESSION_NOT_FOUND, ACTION_NOT_FOUND, CONFIRMATION_REQUIRED, ACTION_REJECTED, PREVIEW_STALE
 */
export async function executeAction(
  r: ComputerUseResources,
  cusId: string,
  actionId: string,
): Promise<CuExecution> {
  const cus = await cuSessionRow(r, cusId);
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
    // After the session's earlier executions: the page it is judged on is the one it will act on.
    const done = await serialised(r, cusId, async () => {
      const current = await actionRow(r, cusId, actionId);
      if (current.status !== row.status) return undefined; // another execute moved it: look again
      await assertStillPreviewed(r, cus, current);
      await r.raceHooks.beforeClaim?.(current.id);
      const claimed = await claim(r, current, token);
      return claimed === undefined ? undefined : run(r, claimed, token);
    });
    if (done !== undefined) return done;
  }
}
