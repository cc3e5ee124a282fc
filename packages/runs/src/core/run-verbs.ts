import { assertJsonDepth, executeInTx, type Tx } from "@vetted/store";
import { eq } from "drizzle-orm";
import type { z } from "zod";
import {
  CancelRunRequest,
  CreateRunInput,
  ResumeRequest,
  type Run,
  RunOtpSubmitRequest,
} from "../domain/run.js";
import { sliceSteps } from "../domain/step-range.js";
import { DEFAULT_POLICIES, type Policies, validateParams } from "../domain/template.js";
import { cancelRun, decideResume, needsStartCode, openStartGate } from "../domain/transitions.js";
import {
  InvalidInputError,
  OtpUnavailableError,
  ResumeRefusedError,
  RunStateError,
  SessionNotFoundError,
  TemplateNotFoundError,
  VersionConflictError,
} from "../kernel/errors.js";
import { templates } from "../store/schema.js";
import { flowAt } from "./flows.js";
import { hashRequest, type IdempotencyOptions, remember, replay } from "./idempotency.js";
import { appendEvents, loadRun, parseInput, persist, readRun } from "./persist.js";
import { type Adoption, LeaseLost, type RunsResources } from "./resources.js";
import { insertRunStatement } from "./run-sql.js";
import { stepTypeOf } from "./steps/registry.js";
import { type RunRow, stateOf, toRun } from "./views.js";

/** What a run is made of before its row exists: the flow, the policies, the params split from secrets. */
export interface RunSource {
  flowId: string;
  flowVersion: number | null;
  templateId: string | null;
  policies: Policies;
  params: Record<string, unknown>;
  secrets: Record<string, string>;
  sessionId: string | null;
}

/** The template's flow and policies, with the params validated. @throws TEMPLATE_NOT_FOUND, PARAMS_INVALID */
async function sourceOf(tx: Tx, body: z.output<typeof CreateRunInput>): Promise<RunSource> {
  if (body.template_id === undefined) {
    const base = {
      flowVersion: null,
      templateId: null,
      policies: DEFAULT_POLICIES,
      secrets: {},
      sessionId: body.session_id ?? null,
    };
    return { ...base, flowId: body.flow_id ?? "", params: body.params };
  }
  const [tpl] = await tx.select().from(templates).where(eq(templates.id, body.template_id)).limit(1);
  if (tpl === undefined) throw new TemplateNotFoundError(body.template_id);
  const checked = validateParams(tpl.paramsSchema, tpl.defaults, body.params);
  if (!checked.ok) {
    const first = checked.issues[0];
    throw new InvalidInputError(
      "PARAMS_INVALID",
      `Param ${first?.key ?? ""} ${first?.message ?? "is invalid"}.`,
      {
        issues: checked.issues,
      },
    );
  }
  return {
    flowId: tpl.flowId,
    flowVersion: tpl.flowVersion,
    templateId: tpl.id,
    policies: tpl.policies,
    params: checked.params,
    secrets: checked.secrets,
    sessionId: body.session_id ?? null,
  };
}

/** A queued run's first row. */
export function queuedRow(
  id: string,
  src: RunSource,
  flow: { version: number; steps: RunRow["steps"] },
  sealed: RunRow["secrets"],
  at: number,
): RunRow {
  return {
    id,
    flowId: src.flowId,
    flowVersion: flow.version,
    templateId: src.templateId,
    steps: flow.steps,
    policies: src.policies,
    params: src.params,
    secrets: sealed,
    status: "queued",
    version: 1,
    cursor: 0,
    vars: {},
    gate: { approved_steps: [] },
    waitContext: null,
    waitExpiresAt: null,
    reason: null,
    error: null,
    otpAttempts: 0,
    leaseOwner: null,
    leaseExpiresAt: null,
    deadlineAt: at + src.policies.run_timeout_seconds * 1000,
    resumedAt: null,
    stepStartedAt: null,
    stepStartedCursor: null,
    inFlightStepId: null,
    sessionId: src.sessionId,
    eventSeq: 1,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
  };
}

/**
 * The flow cut to the request's step range, with what was left out for the run's log.
 * @throws REQUEST_INVALID for an unknown step or a stop before the start
 */
function rangeOf(
  flow: { version: number; steps: RunRow["steps"] },
  body: z.output<typeof CreateRunInput>,
): { version: number; steps: RunRow["steps"]; range: Record<string, unknown> } {
  const { start_at_step_id, stop_after_step_id } = body;
  if (start_at_step_id === undefined && stop_after_step_id === undefined) return { ...flow, range: {} };
  const cut = sliceSteps(flow.steps, { start_at_step_id, stop_after_step_id });
  if (!cut.ok) throw new InvalidInputError("REQUEST_INVALID", cut.message, { field: "start_at_step_id" });
  const range = {
    start_at_step_id,
    stop_after_step_id,
    skipped_step_ids: cut.skipped,
    omitted_step_ids: cut.omitted,
  };
  return { version: flow.version, steps: cut.steps, range };
}

/**
 * A template run whose policy requires a one-time code, and whose flow has no `otp_gate` of its own, waits
 * for the code before its first step: the new row moves `queued` → `waiting_otp` in the creating transaction.
 */
export async function gateStart(
  r: RunsResources,
  tx: Tx,
  src: RunSource,
  row: RunRow,
  at: number,
): Promise<RunRow> {
  if (src.templateId === null || !needsStartCode(row.steps, src.policies)) return row;
  const updated = await persist(r, tx, row, openStartGate(stateOf(row), row.steps, src.policies, at), at);
  // Unreachable: the row was inserted by this transaction, so its version cannot have moved.
  if (updated === undefined) throw new Error(`run ${row.id} changed inside its creating transaction`);
  return updated;
}

/** Refuses a `session_id` with no saved browser state to start from. @throws SESSION_NOT_FOUND */
async function assertSessionState(r: RunsResources, sessionId: string): Promise<void> {
  const state = await r.sessionStates?.load(sessionId);
  if (state === undefined) throw new SessionNotFoundError(sessionId, "with a saved browser state");
}

/**
 * Queues a run of a template (params validated, secrets split off) or of a bare flow, snapshotting the
 * flow's steps and the policies. A repeated `idempotencyKey` answers the first run.
 * @throws TEMPLATE_NOT_FOUND, FLOW_NOT_FOUND, PARAMS_INVALID, IDEMPOTENCY_KEY_REUSED
 */
export async function createRun(
  r: RunsResources,
  input: CreateRunInput,
  opts: IdempotencyOptions = {},
): Promise<Run> {
  assertJsonDepth(input, "The run request");
  const body = parseInput(CreateRunInput, input, "REQUEST_INVALID", "The run request");
  const hash = hashRequest(r.vault, body);
  if (body.session_id !== undefined) await assertSessionState(r, body.session_id);
  const at = r.now();
  const run = await r.write(async (tx) => {
    const replayed = await replay(tx, "create", opts.idempotencyKey, hash);
    if (replayed !== undefined) return replayed;
    const src = await sourceOf(tx, body);
    const flow = rangeOf(await flowAt(tx, src.flowId, src.flowVersion), body);
    // A run with browser steps needs a browser now: refused (503) rather than failing later.
    if (flow.steps.some((s) => stepTypeOf(s).browser === true)) r.browserRuntime.assertAvailable();
    const id = r.newId("run");
    // Secret params are encrypted before they are written: no plain copy reaches the file or its WAL.
    const row = queuedRow(id, src, flow, r.vault.sealParams(id, src.secrets), at);
    const insert = insertRunStatement(row);
    await executeInTx(r.db, tx, insert.sql, insert.args);
    const data = {
      flow_id: src.flowId,
      flow_version: flow.version,
      template_id: src.templateId,
      ...flow.range,
    };
    await appendEvents(r, tx, id, 0, [{ type: "run_created", data }], at);
    const view = toRun(await gateStart(r, tx, src, row, at));
    await remember(tx, "create", opts.idempotencyKey, hash, view, at);
    return view;
  });
  r.kick();
  return run;
}

/** Per-request options of a resume: its `Idempotency-Key` and who answers (kept in the gate_resolved event). */
export interface ResumeOptions extends IdempotencyOptions {
  answeredBy?: string | undefined;
}

/**
 * Resumes a paused run: a compare-and-set on the paused state, so exactly one concurrent resume wins.
 * @throws RUN_NOT_FOUND, RUN_NOT_WAITING, VERSION_CONFLICT, RESUME_KIND_NOT_ALLOWED, INPUT_INVALID,
 *   IDEMPOTENCY_KEY_REUSED
 */
export async function resumeRun(
  r: RunsResources,
  runId: string,
  request: ResumeRequest,
  opts: ResumeOptions = {},
): Promise<Run> {
  const body = parseInput(ResumeRequest, request, "REQUEST_INVALID", "The resume request");
  return resumeWith(r, runId, body, hashRequest(r.vault, { resume: body }), opts);
}

/** Decides a resume on the run as read (no lock held), then commits it only if the run has not moved. */
async function resumeWith(
  r: RunsResources,
  runId: string,
  request: ResumeRequest,
  hash: string,
  opts: ResumeOptions,
): Promise<Run> {
  const key = opts.idempotencyKey;
  const scope = `resume:${runId}`;
  const earlier = await replay(r.db, scope, key, hash);
  if (earlier !== undefined) return earlier;
  const at = r.now();
  const row = await readRun(r.db, runId);
  const decision = decideResume(stateOf(row), row.steps, request, at, opts.answeredBy);
  if (!decision.ok) {
    const { code, message } = decision.refusal;
    const details = { status: row.status, version: row.version };
    if (code === "RUN_NOT_WAITING") throw new RunStateError(code, message, details);
    if (code === "VERSION_CONFLICT") throw new VersionConflictError(message, details);
    throw new ResumeRefusedError(code, message, {
      allowed_resume_kinds: row.waitContext?.allowed_resume_kinds ?? [],
    });
  }
  let resolved = false;
  let adopted: Adoption | undefined;
  const run = await r
    .write(async (tx) => {
      const replayed = await replay(tx, scope, key, hash);
      if (replayed !== undefined) return replayed;
      // The compare-and-set: the write lands only on the version the decision was made on.
      const updated = await persist(r, tx, row, decision.transition, at, { extra: { resumedAt: at } });
      if (updated === undefined) throw new RunStateError("RUN_NOT_WAITING", "Another resume won the race.");
      resolved = true;
      const view = toRun(updated);
      await remember(tx, scope, key, hash, view, at);
      // The answer is the run as resumed; this worker takes it in the same commit when it has a slot.
      if (updated.status === "queued") adopted = await r.adopt(tx, runId, at);
      return view;
    })
    .catch((err: unknown) => {
      adopted?.cancel();
      throw err;
    });
  adopted?.launch();
  if (resolved) {
    const opened = row.waitContext === null ? at : Date.parse(row.waitContext.opened_at);
    r.observer.gateResolved?.({ kind: request.kind, waitedSeconds: Math.max(0, (at - opened) / 1000) });
  }
  r.kick();
  return run;
}

/** The code to resume with: the one sent, or one taken from the OTP source. @throws RUN_NOT_WAITING, OTP_UNAVAILABLE */
async function codeFor(r: RunsResources, runId: string, sent: string | undefined): Promise<string> {
  if (sent !== undefined) return sent;
  const row = await readRun(r.db, runId);
  if (row.status !== "waiting_otp" && !(row.waitContext?.allowed_resume_kinds.includes("otp") ?? false)) {
    throw new RunStateError("RUN_NOT_WAITING", `The run is ${row.status}, not waiting for a one-time code.`);
  }
  if (row.policies.otp.source !== "inbound_messages") {
    throw new OtpUnavailableError("This run has no OTP source configured: send otp_code.");
  }
  const since = row.waitContext === null ? row.createdAt : Date.parse(row.waitContext.opened_at);
  const code = await r.otpSource.takeCode({ run_id: runId, since });
  if (code === undefined) {
    throw new OtpUnavailableError("No one-time code has arrived for this run yet; try again shortly.");
  }
  return code;
}

/**
 * The v2 OTP submission: resumes with `otp_code`, or with a code taken from the OTP source.
 * @throws OTP_UNAVAILABLE and everything {@link resumeRun} throws
 */
export async function submitOtp(
  r: RunsResources,
  runId: string,
  request: RunOtpSubmitRequest,
  opts: ResumeOptions = {},
): Promise<Run> {
  const body = parseInput(RunOtpSubmitRequest, request, "REQUEST_INVALID", "The OTP request");
  const hash = hashRequest(r.vault, { otp: body });
  const replayed = await replay(r.db, `resume:${runId}`, opts.idempotencyKey, hash);
  if (replayed !== undefined) return replayed;
  const code = await codeFor(r, runId, body.otp_code);
  const expected = body.expected_version === undefined ? {} : { expected_version: body.expected_version };
  return resumeWith(r, runId, { kind: "otp", otp_code: code, ...expected }, hash, opts);
}

/**
 * Cancels a run from any non-terminal status and aborts its running step; with `expected_version`, only
 * while the run is still at that version (checked in the cancelling transaction).
 * @throws RUN_NOT_FOUND, RUN_FINISHED, VERSION_CONFLICT, REQUEST_INVALID
 */
export async function cancel(r: RunsResources, runId: string, request: CancelRunRequest = {}): Promise<Run> {
  const body = parseInput(CancelRunRequest, request, "REQUEST_INVALID", "The cancel request");
  const at = r.now();
  const run = await r.write(async (tx) => {
    const row = await loadRun(tx, runId);
    const t = cancelRun(stateOf(row));
    const details = { status: row.status, version: row.version };
    if (t === undefined)
      throw new RunStateError("RUN_FINISHED", `The run already ended (${row.status}).`, details);
    if (body.expected_version !== undefined && body.expected_version !== row.version) {
      const message = `The run is at version ${row.version}, not ${body.expected_version}; reload it.`;
      throw new VersionConflictError(message, details);
    }
    const updated = await persist(r, tx, row, t, at);
    if (updated === undefined) throw new RunStateError("RUN_FINISHED", "The run changed meanwhile; retry.");
    return toRun(updated);
  });
  r.controllers.get(runId)?.abort(new LeaseLost("cancelled"));
  return run;
}
