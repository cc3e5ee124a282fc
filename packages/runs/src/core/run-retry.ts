import type { Tx } from "@vetted/store";
import { eq } from "drizzle-orm";
import { planRetry, RetryRunRequest } from "../domain/retry.js";
import type { Run } from "../domain/run.js";
import { validateParams } from "../domain/template.js";
import { InvalidInputError, RunStateError } from "../kernel/errors.js";
import { idempotency, runs, templates } from "../store/schema.js";
import { appendEvents, loadRun, parseInput } from "./persist.js";
import type { RunsResources } from "./resources.js";
import { gateStart, queuedRow, type RunSource } from "./run-verbs.js";
import { stepTypeOf } from "./steps/registry.js";
import { type RunRow, toRun } from "./views.js";

/** Who retries: kept in the retry's `run_created` event. */
export interface RetryOptions {
  by?: string | undefined;
}

/** The answer of a retry: the retry run, and whether this call created it (false: an earlier one did). */
export interface RetryResult {
  run: Run;
  created: boolean;
}

/** Every retry of one run is recorded under this key, so a run is retried at most once. */
const scopeOf = (runId: string) => `retry:${runId}`;
const KEY = "retry";

/** The secret params the retry runs with, checked against the template's. @throws PARAMS_INVALID */
async function secretsFor(
  tx: Tx,
  row: RunRow,
  given: Record<string, string>,
): Promise<Record<string, string>> {
  const [tpl] =
    row.templateId === null
      ? []
      : await tx.select().from(templates).where(eq(templates.id, row.templateId)).limit(1);
  const specs = (tpl?.paramsSchema ?? []).filter((s) => s.type === "secret");
  const checked = validateParams(specs, tpl?.defaults ?? {}, given);
  if (checked.ok) return checked.secrets;
  const first = checked.issues[0];
  throw new InvalidInputError(
    "PARAMS_INVALID",
    `Secret param ${first?.key ?? ""} ${first?.message ?? "is invalid"}: a run forgets its secrets when it ends, so send them again in \`secrets\`.`,
    { issues: checked.issues },
  );
}

/** The retry run already made for `runId`, as it is now. */
async function earlierRetry(tx: Tx, runId: string): Promise<Run | undefined> {
  const [hit] = await tx
    .select({ runId: idempotency.runId })
    .from(idempotency)
    .where(eq(idempotency.scope, scopeOf(runId)))
    .limit(1);
  return hit === undefined ? undefined : toRun(await loadRun(tx, hit.runId));
}

/**
 * Retries a failed or cancelled run from the step it stopped at: a new run of the same flow snapshot,
 * template and policies, with the same params (secrets entered again) and the vars its earlier steps set,
 * that starts at that step. The run's approvals do not carry over: a gate or a protected payment at or
 * after that step asks again. A run is retried at most once — a second retry (even concurrent, from
 * another process) answers the first retry's run — so retrying the retry is how a person tries again.
 * @throws RUN_NOT_FOUND, RUN_NOT_RETRYABLE, PARAMS_INVALID, REQUEST_INVALID
 */
export async function retryRun(
  r: RunsResources,
  runId: string,
  request: RetryRunRequest = {},
  opts: RetryOptions = {},
): Promise<RetryResult> {
  const body = parseInput(RetryRunRequest, request, "REQUEST_INVALID", "The retry request");
  const at = r.now();
  const result = await r.write(async (tx): Promise<RetryResult> => {
    const earlier = await earlierRetry(tx, runId);
    if (earlier !== undefined) return { run: earlier, created: false };
    const row = await loadRun(tx, runId);
    const plan = planRetry(row);
    if (!plan.ok) {
      throw new RunStateError("RUN_NOT_RETRYABLE", plan.message, {
        status: row.status,
        version: row.version,
      });
    }
    const secrets = await secretsFor(tx, row, body.secrets);
    if (plan.steps.some((s) => stepTypeOf(s).browser === true)) r.browserRuntime.assertAvailable();
    const src: RunSource = {
      flowId: row.flowId,
      flowVersion: row.flowVersion,
      templateId: row.templateId,
      policies: row.policies,
      params: row.params,
      secrets,
      sessionId: row.sessionId,
    };
    const id = r.newId("run");
    const flow = { version: row.flowVersion, steps: plan.steps };
    const fresh = { ...queuedRow(id, src, flow, r.vault.sealParams(id, secrets), at), vars: plan.vars };
    await tx.insert(runs).values(fresh);
    const data = {
      flow_id: row.flowId,
      flow_version: row.flowVersion,
      template_id: row.templateId,
      retry_of: runId,
      start_at_step_id: plan.fromStepId,
      skipped_step_ids: plan.skipped,
      ...(plan.droppedVars.length === 0 ? {} : { dropped_vars: plan.droppedVars }),
      ...(opts.by === undefined ? {} : { by: opts.by }),
    };
    await appendEvents(r, tx, id, 0, [{ type: "run_created", data }], at);
    const view = toRun(await gateStart(r, tx, src, fresh, at));
    await tx
      .insert(idempotency)
      .values({ scope: scopeOf(runId), key: KEY, requestHash: "", runId: id, response: view, createdAt: at });
    return { run: view, created: true };
  });
  if (result.created) r.kick();
  return result;
}
