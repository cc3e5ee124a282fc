import { randomBytes } from "node:crypto";
import { assertJsonDepth } from "@vetted/store";
import { and, asc, count, desc, eq, gt, inArray, isNotNull, lt, lte, or, type SQL } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { z } from "zod";
import { type Flow, FlowInput, FlowPatch } from "../domain/flow.js";
import { interpolate, type Scope } from "../domain/interpolate.js";
import { matchProtectedDomain, parseProtectedDomains } from "../domain/providers.js";
import {
  CreateRunInput,
  ResumeRequest,
  type Run,
  type RunEvent,
  RunOtpSubmitRequest,
} from "../domain/run.js";
import { isTerminal, RUN_STATUSES, type RunStatus, WAITING_STATUSES } from "../domain/status.js";
import { recoverInFlight } from "../domain/step-recovery.js";
import {
  DEFAULT_POLICIES,
  type Template,
  TemplateInput,
  TemplatePatch,
  validateParams,
} from "../domain/template.js";
import {
  cancelRun,
  claimRun,
  completeStep,
  decideResume,
  type EventDraft,
  expireGate,
  failInterpolation,
  failStep,
  failUnreadableSecrets,
  openGate,
  openProviderGate,
  type RunState,
  type Transition,
  timeOutRun,
} from "../domain/transitions.js";
import { assertParamPatterns, assertStepPatterns } from "../domain/user-patterns.js";
import { ConflictError, NotFoundError, type RunsErrorCode, UnprocessableError } from "../errors.js";
import { type Step, stepTypeOf } from "../steps/registry.js";
import type { StepOutcome, StepType } from "../steps/step-type.js";
import { events, flows, flowVersions, idempotency, runs, templates } from "../store/schema.js";
import { type Tx, writeTx } from "./lock.js";
import { createInboundMessagesOtpSource, type OtpSource } from "./otp-source.js";
import { createOutboundPolicy, type OutboundPolicyOptions } from "./outbound.js";
import { createRunVault, type OpenedVault, type RunVault, redactError, spendCode } from "./run-vault.js";
import { failRunOnError, guardOutcome, prepareOutbound } from "./step-guard.js";
import { decodeCursor, encodeCursor, type RunRow, stateOf, toFlow, toRun, toTemplate } from "./views.js";

/** The engine's source of time (epoch ms). */
export interface Clock {
  now(): number;
}

/** Makes a fresh id with the given prefix (`run`, `flow`, `tpl`, `wrk`). */
export type IdGenerator = (prefix: string) => string;

/** Hooks the engine calls as things happen (the server turns them into Prometheus metrics). */
export interface RunsObserver {
  gateResolved?(info: { kind: string; waitedSeconds: number }): void;
  /** Milliseconds from a resume's commit to the next step being claimed. */
  resumeToNextStep?(ms: number): void;
  timedOut?(reason: "wait_timeout" | "run_timeout"): void;
  leaseExpired?(): void;
  /** An unexpected error in background work (logged by the host, never thrown). */
  error?(message: string, err: unknown): void;
}

/** What {@link createRunsEngine} is built from. */
export interface RunsEngineOptions {
  db: LibSQLDatabase;
  /**
   * The per-installation 32-byte key (see `loadSecretsKey`) that encrypts secret params, one-time codes and
   * vars holding them at rest (AES-256-GCM). Every process sharing the database needs the same key.
   */
  secretsKey: Buffer;
  clock?: Clock;
  ids?: IdGenerator;
  /** Protected payment provider domains; default: {@link parseProtectedDomains}(undefined). */
  protectedDomains?: readonly string[];
  /** Where `POST /otp` without a code takes one from; default: the inbound-messages table. */
  otpSource?: OtpSource;
  /** How long a claimed run stays leased without a heartbeat (default 30 000 ms). */
  leaseMs?: number;
  /** How often the worker looks for work and expired gates (default 500 ms). */
  pollMs?: number;
  /** How many runs this process executes at once (default 4). */
  concurrency?: number;
  fetch?: typeof globalThis.fetch;
  observer?: RunsObserver;
  /** Where `http` steps may connect (`VETTED_HTTP_ALLOW`, `VETTED_HTTP_DENY`, the resolver). */
  outbound?: OutboundPolicyOptions;
  /** The largest `http` response body read (default 5 MiB); larger fails the step `RESPONSE_TOO_LARGE`. */
  maxResponseBytes?: number;
}

/** A page of a list. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Per-request options of the verbs that honour `Idempotency-Key`. */
export interface IdempotencyOptions {
  idempotencyKey?: string | undefined;
}

/** A list query. */
export interface ListQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
}

const RUN_ACTIVE = RUN_STATUSES.filter((s) => !isTerminal(s));
const RUN_WAITING = [...WAITING_STATUSES];

function defaultIds(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("base64url")}`;
}

/** JSON with object keys sorted, so the same body hashes the same whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A keyed digest of a request body: a stored hash must not let anyone try codes or secrets against it. */
function hashRequest(vault: RunVault, value: unknown): string {
  return vault.digest(canonicalJson(value));
}

function parse<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: RunsErrorCode,
  what: string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
    throw new UnprocessableError(
      code,
      `${what} is invalid: ${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim(),
      {
        issues,
      },
    );
  }
  return result.data;
}

class LeaseLost extends Error {
  override readonly name = "LeaseLost";
}

/**
 * Creates the run engine: flows, templates and durable runs over one database. `start()` launches this
 * process's worker (claims queued runs under a lease, executes steps, expires gates); `stop()` ends it.
 */
export function createRunsEngine(options: RunsEngineOptions) {
  const { db } = options;
  const now = () => options.clock?.now() ?? Date.now();
  const newId = options.ids ?? defaultIds;
  const protectedDomains = options.protectedDomains ?? parseProtectedDomains(undefined);
  const otpSource =
    options.otpSource ??
    createInboundMessagesOtpSource({
      db,
      secretsKey: options.secretsKey,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  const leaseMs = options.leaseMs ?? 30_000;
  const pollMs = options.pollMs ?? 500;
  const concurrency = options.concurrency ?? 4;
  const doFetch = options.fetch ?? globalThis.fetch;
  const observer = options.observer ?? {};
  const workerId = newId("wrk");
  const vault = createRunVault(options.secretsKey);
  const outbound = createOutboundPolicy(options.outbound);

  const controllers = new Map<string, AbortController>();
  const executions = new Set<Promise<void>>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let pumping = false;
  let pumpAgain = false;
  let started = false;

  // ---- persistence of one transition -------------------------------------------------------------

  async function persist(
    tx: Tx,
    row: RunRow,
    t: Transition,
    at: number,
    opts: { leaseOwner?: string; extra?: Partial<RunRow> } = {},
  ): Promise<RunRow | undefined> {
    // Secrets and one-time codes are sealed or redacted before anything is written.
    const safe = vault.protect(row, t);
    const drafts = safe.events;
    const s = safe.state;
    const changes = {
      status: s.status,
      cursor: s.cursor,
      vars: s.vars,
      gate: s.gate,
      waitContext: s.wait,
      waitExpiresAt: s.waitExpiresAt,
      reason: s.reason,
      error: s.error,
      otpAttempts: s.otpAttempts,
      version: s.version,
      eventSeq: row.eventSeq + drafts.length,
      updatedAt: at,
      // Every commit settles the step that was in flight.
      inFlightStepId: null,
      finishedAt: isTerminal(s.status) ? at : null,
      // A run that ended needs its secrets no more: protect() left no sealed slot and no copy in vars.
      secrets: safe.slots,
      ...(s.status === "running" ? {} : { leaseOwner: null, leaseExpiresAt: null }),
      // The step's first start is kept only while the run stays at that step (a re-claim, not a move).
      ...(s.status === "running" && s.cursor === row.cursor
        ? {}
        : { stepStartedAt: null, stepStartedCursor: null }),
      ...opts.extra,
    } satisfies Partial<RunRow>;
    const result = await tx
      .update(runs)
      .set(changes)
      .where(
        and(
          eq(runs.id, row.id),
          eq(runs.version, row.version),
          opts.leaseOwner === undefined ? undefined : eq(runs.leaseOwner, opts.leaseOwner),
        ),
      );
    if (result.rowsAffected === 0) return undefined;
    await appendEvents(tx, row.id, row.eventSeq, drafts, at);
    return { ...row, ...changes };
  }

  async function appendEvents(
    tx: Tx,
    runId: string,
    afterSeq: number,
    drafts: readonly EventDraft[],
    at: number,
  ) {
    if (drafts.length === 0) return;
    await tx
      .insert(events)
      .values(drafts.map((e, i) => ({ runId, seq: afterSeq + i + 1, type: e.type, data: e.data, at })));
  }

  async function loadRun(tx: Tx | LibSQLDatabase, runId: string): Promise<RunRow> {
    const [row] = await tx.select().from(runs).where(eq(runs.id, runId)).limit(1);
    if (row === undefined) throw new NotFoundError("RUN_NOT_FOUND", `No run ${runId}.`);
    return row;
  }

  // ---- flows --------------------------------------------------------------------------------------

  /** Stores a new flow at version 1. @throws FLOW_INVALID */
  async function createFlow(input: FlowInput): Promise<Flow> {
    assertJsonDepth(input, "The flow");
    const flow = parse(FlowInput, input, "FLOW_INVALID", "The flow");
    assertStepPatterns(flow.steps);
    const at = now();
    const id = newId("flow");
    await writeTx(db, async (tx) => {
      await tx
        .insert(flows)
        .values({ id, name: flow.name, version: 1, steps: flow.steps, createdAt: at, updatedAt: at });
      await tx
        .insert(flowVersions)
        .values({ flowId: id, version: 1, name: flow.name, steps: flow.steps, createdAt: at });
    });
    return {
      id,
      name: flow.name,
      version: 1,
      steps: flow.steps,
      created_at: new Date(at).toISOString(),
      updated_at: new Date(at).toISOString(),
    };
  }

  /** The flow at its latest version. @throws FLOW_NOT_FOUND */
  async function getFlow(flowId: string): Promise<Flow> {
    const [row] = await db.select().from(flows).where(eq(flows.id, flowId)).limit(1);
    if (row === undefined) throw new NotFoundError("FLOW_NOT_FOUND", `No flow ${flowId}.`);
    return toFlow(row);
  }

  /** Changes a flow and bumps its version (older versions stay for pinned templates). @throws FLOW_NOT_FOUND, VERSION_MISMATCH */
  async function updateFlow(flowId: string, patch: FlowPatch): Promise<Flow> {
    assertJsonDepth(patch, "The flow");
    const p = parse(FlowPatch, patch, "FLOW_INVALID", "The flow");
    assertStepPatterns(p.steps ?? []);
    const at = now();
    return writeTx(db, async (tx) => {
      const [row] = await tx.select().from(flows).where(eq(flows.id, flowId)).limit(1);
      if (row === undefined) throw new NotFoundError("FLOW_NOT_FOUND", `No flow ${flowId}.`);
      if (p.expected_version !== undefined && p.expected_version !== row.version) {
        throw new ConflictError(
          "VERSION_MISMATCH",
          `The flow is at version ${row.version}, not ${p.expected_version}.`,
          {
            version: row.version,
          },
        );
      }
      const next = {
        name: p.name ?? row.name,
        steps: p.steps ?? row.steps,
        version: row.version + 1,
        updatedAt: at,
      };
      const [updated] = await tx.update(flows).set(next).where(eq(flows.id, flowId)).returning();
      await tx
        .insert(flowVersions)
        .values({ flowId, version: next.version, name: next.name, steps: next.steps, createdAt: at });
      if (updated === undefined) throw new NotFoundError("FLOW_NOT_FOUND", `No flow ${flowId}.`);
      return toFlow(updated);
    });
  }

  function pageWhere(
    table: typeof flows | typeof templates | typeof runs,
    cursor: string | undefined,
  ): SQL | undefined {
    if (cursor === undefined) return undefined;
    const c = decodeCursor(cursor);
    if (c === undefined)
      throw new UnprocessableError("PARAMS_INVALID", "The cursor is not one this server issued.");
    return or(lt(table.createdAt, c.createdAt), and(eq(table.createdAt, c.createdAt), lt(table.id, c.id)));
  }

  function page<R extends { createdAt: number; id: string }, T>(
    rows: R[],
    limit: number,
    view: (r: R) => T,
  ): Page<T> {
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items: items.map(view),
      next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.createdAt, last.id) : null,
    };
  }

  /** Flows, newest first. */
  async function listFlows(query: ListQuery = {}): Promise<Page<Flow>> {
    const limit = query.limit ?? 50;
    const rows = await db
      .select()
      .from(flows)
      .where(pageWhere(flows, query.cursor))
      .orderBy(desc(flows.createdAt), desc(flows.id))
      .limit(limit + 1);
    return page(rows, limit, toFlow);
  }

  async function flowAt(tx: Tx, flowId: string, version: number | null) {
    if (version === null) {
      const [row] = await tx.select().from(flows).where(eq(flows.id, flowId)).limit(1);
      if (row === undefined) throw new NotFoundError("FLOW_NOT_FOUND", `No flow ${flowId}.`);
      return { version: row.version, steps: row.steps };
    }
    const [row] = await tx
      .select()
      .from(flowVersions)
      .where(and(eq(flowVersions.flowId, flowId), eq(flowVersions.version, version)))
      .limit(1);
    if (row === undefined)
      throw new NotFoundError("FLOW_NOT_FOUND", `No flow ${flowId} at version ${version}.`);
    return { version: row.version, steps: row.steps };
  }

  // ---- templates ----------------------------------------------------------------------------------

  /** Stores a template over an existing flow (and version, when pinned). @throws TEMPLATE_INVALID, FLOW_NOT_FOUND */
  async function createTemplate(input: TemplateInput): Promise<Template> {
    assertJsonDepth(input, "The template");
    const t = parse(TemplateInput, input, "TEMPLATE_INVALID", "The template");
    assertParamPatterns(t.params_schema);
    const at = now();
    const id = newId("tpl");
    return writeTx(db, async (tx) => {
      await flowAt(tx, t.flow_id, t.flow_version ?? null);
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
        })
        .returning();
      if (row === undefined) throw new Error("insert returned nothing");
      return toTemplate(row);
    });
  }

  /** One template. @throws TEMPLATE_NOT_FOUND */
  async function getTemplate(templateId: string): Promise<Template> {
    const [row] = await db.select().from(templates).where(eq(templates.id, templateId)).limit(1);
    if (row === undefined) throw new NotFoundError("TEMPLATE_NOT_FOUND", `No template ${templateId}.`);
    return toTemplate(row);
  }

  /** Changes a template and bumps its version. @throws TEMPLATE_NOT_FOUND, VERSION_MISMATCH, TEMPLATE_INVALID */
  async function updateTemplate(templateId: string, patch: TemplatePatch): Promise<Template> {
    assertJsonDepth(patch, "The template");
    const p = parse(TemplatePatch, patch, "TEMPLATE_INVALID", "The template");
    assertParamPatterns(p.params_schema ?? []);
    const at = now();
    return writeTx(db, async (tx) => {
      const [row] = await tx.select().from(templates).where(eq(templates.id, templateId)).limit(1);
      if (row === undefined) throw new NotFoundError("TEMPLATE_NOT_FOUND", `No template ${templateId}.`);
      if (p.expected_version !== undefined && p.expected_version !== row.version) {
        throw new ConflictError(
          "VERSION_MISMATCH",
          `The template is at version ${row.version}, not ${p.expected_version}.`,
          {
            version: row.version,
          },
        );
      }
      const merged = parse(
        TemplateInput,
        {
          name: p.name ?? row.name,
          flow_id: row.flowId,
          ...((p.flow_version ?? row.flowVersion) === null
            ? {}
            : { flow_version: p.flow_version ?? row.flowVersion }),
          params_schema: p.params_schema ?? row.paramsSchema,
          defaults: p.defaults ?? row.defaults,
          policies: p.policies ?? row.policies,
        },
        "TEMPLATE_INVALID",
        "The template",
      );
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
      if (updated === undefined) throw new NotFoundError("TEMPLATE_NOT_FOUND", `No template ${templateId}.`);
      return toTemplate(updated);
    });
  }

  /** Templates, newest first. */
  async function listTemplates(query: ListQuery = {}): Promise<Page<Template>> {
    const limit = query.limit ?? 50;
    const rows = await db
      .select()
      .from(templates)
      .where(pageWhere(templates, query.cursor))
      .orderBy(desc(templates.createdAt), desc(templates.id))
      .limit(limit + 1);
    return page(rows, limit, toTemplate);
  }

  // ---- idempotency --------------------------------------------------------------------------------

  async function replay(
    tx: Tx | LibSQLDatabase,
    scope: string,
    key: string | undefined,
    hash: string,
  ): Promise<Run | undefined> {
    if (key === undefined) return undefined;
    const [hit] = await tx
      .select()
      .from(idempotency)
      .where(and(eq(idempotency.scope, scope), eq(idempotency.key, key)))
      .limit(1);
    if (hit === undefined) return undefined;
    if (hit.requestHash !== hash) {
      throw new UnprocessableError(
        "IDEMPOTENCY_KEY_REUSED",
        "This Idempotency-Key was already used with a different request body; use a new key.",
      );
    }
    return hit.response as Run;
  }

  async function remember(
    tx: Tx,
    scope: string,
    key: string | undefined,
    hash: string,
    run: Run,
    at: number,
  ) {
    if (key === undefined) return;
    await tx
      .insert(idempotency)
      .values({ scope, key, requestHash: hash, runId: run.id, response: run, createdAt: at });
  }

  // ---- runs ---------------------------------------------------------------------------------------

  /**
   * Queues a run of a template (params validated, secrets split off) or of a bare flow, snapshotting the
   * flow's steps and the policies. A repeated `idempotencyKey` answers the first run.
   * @throws TEMPLATE_NOT_FOUND, FLOW_NOT_FOUND, PARAMS_INVALID, IDEMPOTENCY_KEY_REUSED
   */
  async function createRun(input: CreateRunInput, opts: IdempotencyOptions = {}): Promise<Run> {
    assertJsonDepth(input, "The run request");
    const body = parse(CreateRunInput, input, "REQUEST_INVALID", "The run request");
    const hash = hashRequest(vault, body);
    const at = now();
    const run = await writeTx(db, async (tx) => {
      const replayed = await replay(tx, "create", opts.idempotencyKey, hash);
      if (replayed !== undefined) return replayed;
      let flowId: string;
      let flowVersion: number | null = null;
      let policies = DEFAULT_POLICIES;
      let params: Record<string, unknown> = body.params;
      let secrets: Record<string, string> = {};
      let templateId: string | null = null;
      if (body.template_id !== undefined) {
        const [tpl] = await tx.select().from(templates).where(eq(templates.id, body.template_id)).limit(1);
        if (tpl === undefined)
          throw new NotFoundError("TEMPLATE_NOT_FOUND", `No template ${body.template_id}.`);
        const checked = validateParams(tpl.paramsSchema, tpl.defaults, body.params);
        if (!checked.ok) {
          const first = checked.issues[0];
          throw new UnprocessableError(
            "PARAMS_INVALID",
            `Param ${first?.key ?? ""} ${first?.message ?? "is invalid"}.`,
            {
              issues: checked.issues,
            },
          );
        }
        ({ params, secrets } = checked);
        flowId = tpl.flowId;
        flowVersion = tpl.flowVersion;
        policies = tpl.policies;
        templateId = tpl.id;
      } else {
        flowId = body.flow_id ?? "";
      }
      const flow = await flowAt(tx, flowId, flowVersion);
      const id = newId("run");
      // Secret params are encrypted before they are written: no plain copy reaches the file or its WAL.
      const sealed = vault.sealParams(id, secrets);
      const row: RunRow = {
        id,
        flowId,
        flowVersion: flow.version,
        templateId,
        steps: flow.steps,
        policies,
        params,
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
        deadlineAt: at + policies.run_timeout_seconds * 1000,
        resumedAt: null,
        stepStartedAt: null,
        stepStartedCursor: null,
        inFlightStepId: null,
        eventSeq: 1,
        createdAt: at,
        updatedAt: at,
        finishedAt: null,
      };
      await tx.insert(runs).values(row);
      await appendEvents(
        tx,
        id,
        0,
        [
          {
            type: "run_created",
            data: { flow_id: flowId, flow_version: flow.version, template_id: templateId },
          },
        ],
        at,
      );
      const view = toRun(row);
      await remember(tx, "create", opts.idempotencyKey, hash, view, at);
      return view;
    });
    kick();
    return run;
  }

  /** One run, without secrets or codes. @throws RUN_NOT_FOUND */
  async function getRun(runId: string): Promise<Run> {
    return toRun(await loadRun(db, runId));
  }

  /** Runs, newest first, optionally by status or template. */
  async function listRuns(
    query: ListQuery & { status?: RunStatus | undefined; template_id?: string | undefined } = {},
  ): Promise<Page<Run>> {
    const limit = query.limit ?? 50;
    const rows = await db
      .select()
      .from(runs)
      .where(
        and(
          pageWhere(runs, query.cursor),
          query.status === undefined ? undefined : eq(runs.status, query.status),
          query.template_id === undefined ? undefined : eq(runs.templateId, query.template_id),
        ),
      )
      .orderBy(desc(runs.createdAt), desc(runs.id))
      .limit(limit + 1);
    return page(rows, limit, toRun);
  }

  /**
   * Resumes a paused run: a compare-and-set on the paused state, so exactly one concurrent resume wins.
   * @throws RUN_NOT_FOUND, RUN_NOT_WAITING, VERSION_MISMATCH, RESUME_KIND_NOT_ALLOWED, INPUT_INVALID,
   *   IDEMPOTENCY_KEY_REUSED
   */
  async function resumeRun(
    runId: string,
    request: ResumeRequest,
    opts: IdempotencyOptions = {},
  ): Promise<Run> {
    const body = parse(ResumeRequest, request, "REQUEST_INVALID", "The resume request");
    return resumeWith(runId, body, hashRequest(vault, { resume: body }), opts.idempotencyKey);
  }

  async function resumeWith(
    runId: string,
    request: ResumeRequest,
    hash: string,
    key: string | undefined,
  ): Promise<Run> {
    const at = now();
    let waitedSeconds: number | undefined;
    const run = await writeTx(db, async (tx) => {
      const replayed = await replay(tx, `resume:${runId}`, key, hash);
      if (replayed !== undefined) return replayed;
      const row = await loadRun(tx, runId);
      const decision = decideResume(stateOf(row), row.steps, request, at);
      if (!decision.ok) {
        const { code, message } = decision.refusal;
        if (code === "RUN_NOT_WAITING" || code === "VERSION_MISMATCH") {
          throw new ConflictError(code, message, { status: row.status, version: row.version });
        }
        throw new UnprocessableError(code, message, {
          allowed_resume_kinds: row.waitContext?.allowed_resume_kinds ?? [],
        });
      }
      waitedSeconds =
        row.waitContext === null ? 0 : Math.max(0, (at - Date.parse(row.waitContext.opened_at)) / 1000);
      const updated = await persist(tx, row, decision.transition, at, { extra: { resumedAt: at } });
      if (updated === undefined) throw new ConflictError("RUN_NOT_WAITING", "Another resume won the race.");
      const view = toRun(updated);
      await remember(tx, `resume:${runId}`, key, hash, view, at);
      return view;
    });
    if (waitedSeconds !== undefined) observer.gateResolved?.({ kind: request.kind, waitedSeconds });
    kick();
    return run;
  }

  /**
   * The v2 OTP submission: resumes with `otp_code`, or with a code taken from the OTP source.
   * @throws OTP_UNAVAILABLE and everything {@link resumeRun} throws
   */
  async function submitOtp(
    runId: string,
    request: RunOtpSubmitRequest,
    opts: IdempotencyOptions = {},
  ): Promise<Run> {
    const body = parse(RunOtpSubmitRequest, request, "REQUEST_INVALID", "The OTP request");
    const hash = hashRequest(vault, { otp: body });
    const replayed = await replay(db, `resume:${runId}`, opts.idempotencyKey, hash);
    if (replayed !== undefined) return replayed;
    let code = body.otp_code;
    if (code === undefined) {
      const row = await loadRun(db, runId);
      if (row.status !== "waiting_otp" && !(row.waitContext?.allowed_resume_kinds.includes("otp") ?? false)) {
        throw new ConflictError(
          "RUN_NOT_WAITING",
          `The run is ${row.status}, not waiting for a one-time code.`,
        );
      }
      if (row.policies.otp.source !== "inbound_messages") {
        throw new UnprocessableError(
          "OTP_UNAVAILABLE",
          "This run has no OTP source configured: send otp_code.",
        );
      }
      const since = row.waitContext === null ? row.createdAt : Date.parse(row.waitContext.opened_at);
      code = await otpSource.takeCode({ run_id: runId, since });
      if (code === undefined) {
        throw new UnprocessableError(
          "OTP_UNAVAILABLE",
          "No one-time code has arrived for this run yet; try again shortly.",
        );
      }
    }
    return resumeWith(
      runId,
      {
        kind: "otp",
        otp_code: code,
        ...(body.expected_version === undefined ? {} : { expected_version: body.expected_version }),
      },
      hash,
      opts.idempotencyKey,
    );
  }

  /** Cancels a run from any non-terminal status and aborts its running step. @throws RUN_NOT_FOUND, RUN_FINISHED */
  async function cancel(runId: string): Promise<Run> {
    const at = now();
    const run = await writeTx(db, async (tx) => {
      const row = await loadRun(tx, runId);
      const t = cancelRun(stateOf(row));
      if (t === undefined) {
        throw new ConflictError("RUN_FINISHED", `The run already ended (${row.status}).`, {
          status: row.status,
        });
      }
      const updated = await persist(tx, row, t, at);
      if (updated === undefined) throw new ConflictError("RUN_FINISHED", "The run changed meanwhile; retry.");
      return toRun(updated);
    });
    controllers.get(runId)?.abort(new LeaseLost("cancelled"));
    return run;
  }

  /** The run's event log after `after`, oldest first. @throws RUN_NOT_FOUND */
  async function listEvents(
    runId: string,
    query: { after?: number | undefined; limit?: number | undefined } = {},
  ): Promise<Page<RunEvent>> {
    await loadRun(db, runId);
    const limit = query.limit ?? 100;
    const rows = await db
      .select()
      .from(events)
      .where(and(eq(events.runId, runId), gt(events.seq, query.after ?? 0)))
      .orderBy(asc(events.seq))
      .limit(limit + 1);
    const items = rows.slice(0, limit).map((e) => ({
      id: e.seq,
      run_id: e.runId,
      type: e.type as RunEvent["type"],
      data: e.data,
      at: new Date(e.at).toISOString(),
    }));
    const last = items[items.length - 1];
    return { items, next_cursor: rows.length > limit && last !== undefined ? String(last.id) : null };
  }

  /** How many runs are in each status. */
  async function countRunsByStatus(): Promise<Record<RunStatus, number>> {
    const rows = await db.select({ status: runs.status, n: count() }).from(runs).groupBy(runs.status);
    const out = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>;
    for (const r of rows) out[r.status] = r.n;
    return out;
  }

  // ---- the worker ---------------------------------------------------------------------------------

  function claimable(at: number) {
    return or(eq(runs.status, "queued"), and(eq(runs.status, "running"), lt(runs.leaseExpiresAt, at)));
  }

  /** Claims the oldest queued (or lease-expired) run and runs its instant steps, in one transaction. */
  async function claim(): Promise<RunRow | undefined> {
    const at = now();
    // A cheap read first: most polls find nothing, and need no write lock for that.
    const [candidate] = await db.select({ id: runs.id }).from(runs).where(claimable(at)).limit(1);
    if (candidate === undefined) return undefined;
    const picked: { id?: string } = {};
    try {
      return await claimIn(at, (id) => {
        picked.id = id;
      });
    } catch (err) {
      // The error is that run's alone: fail it, and let the round go on with the others.
      if (picked.id === undefined) throw err;
      observer.error?.(`run ${picked.id} failed on an unexpected error`, err);
      if (!(await failRunOnError(crashDeps, picked.id, err))) throw err;
      kick();
      return undefined;
    }
  }

  async function claimIn(at: number, pick: (id: string) => void): Promise<RunRow | undefined> {
    return writeTx(db, async (tx) => {
      const [row] = await tx.select().from(runs).where(claimable(at)).orderBy(asc(runs.updatedAt)).limit(1);
      if (row === undefined) return undefined;
      pick(row.id);
      const expired = row.status === "running";
      // A step a previous worker left in flight is in doubt: pause rather than send it again.
      const claimed = recoverInFlight(
        claimRun(stateOf(row), expired),
        row.steps,
        row.inFlightStepId,
        row.policies,
        at,
      );
      // Instant steps run inside the claim's transaction: a flow without I/O completes in one commit.
      const ahead = await advanceInstant({ ...row, status: "running" }, claimed);
      const updated = await persist(tx, row, ahead, at, {
        extra: { leaseOwner: workerId, leaseExpiresAt: at + leaseMs, resumedAt: null },
      });
      if (expired) observer.leaseExpired?.();
      if (row.resumedAt !== null) observer.resumeToNextStep?.(at - row.resumedAt);
      return updated;
    });
  }

  /** The heartbeat: extends this worker's lease while the run is still running and ours. */
  async function renewLease(runId: string): Promise<boolean> {
    const at = now();
    const updated = await writeTx(db, (tx) =>
      tx
        .update(runs)
        .set({ leaseExpiresAt: at + leaseMs })
        .where(and(eq(runs.id, runId), eq(runs.leaseOwner, workerId), eq(runs.status, "running")))
        .returning({ id: runs.id }),
    );
    return updated.length > 0;
  }

  async function commit(row: RunRow, t: Transition): Promise<RunRow | undefined> {
    const at = now();
    return writeTx(db, (tx) => persist(tx, row, t, at, { leaseOwner: workerId }));
  }

  async function recordStepStart(row: RunRow, step: Step, inFlight: boolean): Promise<RunRow | undefined> {
    const at = now();
    const firstStart = row.stepStartedAt === null || row.stepStartedCursor !== row.cursor;
    return writeTx(db, async (tx) => {
      const [updated] = await tx
        .update(runs)
        // Starting a step with side effects needs a live lease, and renews it for the step's sake.
        .set({
          eventSeq: row.eventSeq + 1,
          updatedAt: at,
          leaseExpiresAt: at + leaseMs,
          ...(firstStart ? { stepStartedAt: at, stepStartedCursor: row.cursor } : {}),
          // Durable before a non-idempotent request leaves: a re-claim finds it and does not repeat it.
          ...(inFlight ? { inFlightStepId: step.id } : {}),
        })
        .where(
          and(
            eq(runs.id, row.id),
            eq(runs.version, row.version),
            eq(runs.leaseOwner, workerId),
            gt(runs.leaseExpiresAt, at),
          ),
        )
        .returning();
      if (updated === undefined) return undefined;
      await appendEvents(
        tx,
        row.id,
        row.eventSeq,
        [{ type: "step_started", data: { step_id: step.id, type: step.type } }],
        at,
      );
      return updated;
    });
  }

  /** Drives one claimed run until it pauses, ends or is taken away. */
  async function execute(claimed: RunRow): Promise<void> {
    const controller = new AbortController();
    controllers.set(claimed.id, controller);
    const heartbeat = setInterval(
      () => {
        renewLease(claimed.id)
          .then((ok) => {
            if (!ok) controller.abort(new LeaseLost("lease lost"));
          })
          .catch((err: unknown) => observer.error?.("lease renewal failed", err));
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    let row: RunRow | undefined = claimed;
    try {
      while (row !== undefined && row.status === "running" && !controller.signal.aborted) {
        row = await executeStep(row, controller.signal);
      }
    } catch (err) {
      if (!controller.signal.aborted) {
        const safe = redactError(vault, claimed, err);
        observer.error?.(`run ${claimed.id} stopped on an unexpected error`, safe);
        await failRunOnError(crashDeps, claimed.id, err).catch((e: unknown) =>
          observer.error?.(`could not fail run ${claimed.id}`, redactError(vault, claimed, e)),
        );
      }
    } finally {
      clearInterval(heartbeat);
      controllers.delete(claimed.id);
    }
  }

  /** Steps executed in memory and committed together while they are instant (pure steps, gates). */
  const MAX_BATCH = 32;

  /** What a step's references see: sealed values are decrypted in memory only. */
  function scopeOf(row: RunRow, state: RunState, opened: OpenedVault): Scope {
    return vault.scopeOf(row, state, opened);
  }

  async function runStep(
    type: StepType<Step>,
    step: Step,
    row: RunRow,
    signal: AbortSignal,
    stepFetch: typeof globalThis.fetch = doFetch,
  ): Promise<{ outcome: StepOutcome; durationMs: number }> {
    const t0 = performance.now();
    let outcome: StepOutcome;
    try {
      outcome = await type.execute(step, {
        runId: row.id,
        stepId: step.id,
        signal,
        retries: row.policies.retries,
        fetch: stepFetch,
        maxResponseBytes: options.maxResponseBytes,
        startedAt:
          row.stepStartedCursor === row.cursor && row.stepStartedAt !== null ? row.stepStartedAt : now(),
        now,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      outcome = {
        kind: "failed",
        reason: "step_failed",
        message: `${step.id}: ${err instanceof Error ? err.message : String(err)}`,
        expectation: false,
      };
    }
    return { outcome, durationMs: Math.round(performance.now() - t0) };
  }

  function transitionFor(state: RunState, row: RunRow, result: StepOutcome, durationMs: number): Transition {
    const outcome = guardOutcome(result, row.steps[state.cursor]?.id);
    if (outcome.kind === "completed") return completeStep(state, row.steps, outcome, durationMs);
    if (outcome.kind === "failed")
      return failStep(state, row.steps, outcome, row.policies, durationMs, now());
    if (outcome.gate.kind === "otp" && !row.policies.otp.required) {
      const skipped = { ...state, gate: { ...state.gate, otp_code: "" } };
      return completeStep(
        skipped,
        row.steps,
        { kind: "completed", detail: { skipped: "otp not required" } },
        0,
      );
    }
    return openGate(state, row.steps, outcome.gate, row.policies, now());
  }

  /** A step that takes time, found by {@link advanceInstant}, with its interpolated form and type. */
  interface SlowStep {
    step: Step;
    resolvedStep: Step;
    type: StepType<Step>;
  }

  /**
   * Runs instant steps (pure steps, gates, the protected-provider check, interpolation failures) in memory
   * from `start`, up to {@link MAX_BATCH}, and stops at the first step that takes time (returned as
   * `slow`) or when the run leaves `running`. The caller commits the result in one transaction.
   */
  async function advanceInstant(row: RunRow, start: Transition): Promise<Transition & { slow?: SlowStep }> {
    let state = start.state;
    const drafts = [...start.events];
    const opened = vault.open(row);
    for (let advanced = 0; state.status === "running" && advanced < MAX_BATCH; advanced++) {
      const step = row.steps[state.cursor];
      if (step === undefined) {
        const t = completeStep(
          { ...state, cursor: row.steps.length - 1 },
          row.steps,
          { kind: "completed" },
          0,
        );
        return { state: t.state, events: [...drafts, ...t.events] };
      }
      const resolved =
        opened.unreadable.length > 0 ? undefined : interpolate(step, scopeOf(row, state, opened));
      let t: Transition;
      if (resolved === undefined) {
        t = failUnreadableSecrets(state, step.id, opened.unreadable);
      } else if (!resolved.ok) {
        t = failInterpolation(state, step.id, resolved.reference);
      } else {
        const resolvedStep = resolved.value as Step;
        const type = stepTypeOf(resolvedStep);
        const domain = (type.targets?.(resolvedStep) ?? [])
          .map((url) => matchProtectedDomain(url, protectedDomains))
          .find((d) => d !== undefined);
        if (domain !== undefined && !state.gate.approved_steps.includes(step.id)) {
          t = openProviderGate(state, row.steps, domain, row.policies, now());
        } else if (type.effect === "pure" || type.effect === "gate") {
          drafts.push({ type: "step_started", data: { step_id: step.id, type: step.type } });
          const { outcome, durationMs } = await runStep(
            type,
            resolvedStep,
            row,
            new AbortController().signal,
          );
          t = transitionFor(state, row, outcome, durationMs);
        } else {
          return { state, events: drafts, slow: { step, resolvedStep, type } };
        }
      }
      drafts.push(...t.events);
      state = t.state;
    }
    return { state, events: drafts };
  }

  /**
   * Advances a claimed run by one commit: the instant steps ahead of it, or else one step that takes time
   * (external I/O, timers) — marked started in its own transaction, executed under the run's AbortSignal,
   * and committed together with the instant steps after it. Returns the run as committed, or undefined
   * when the run was taken away (cancelled, timed out, lease lost).
   */
  async function executeStep(row: RunRow, signal: AbortSignal): Promise<RunRow | undefined> {
    const ahead = await advanceInstant(row, { state: stateOf(row), events: [] });
    if (ahead.slow === undefined || ahead.events.length > 0) return commit(row, ahead);
    const { step, resolvedStep, type } = ahead.slow;
    const target = await prepareOutbound({
      policy: outbound,
      protectedDomains,
      fetch: doFetch,
      row,
      step,
      resolvedStep,
      type,
      now: now(),
    });
    if (target.kind === "blocked") return commit(row, target.transition);
    const inFlight = type.effect === "external" && !(type.idempotent?.(resolvedStep) ?? false);
    let marked: RunRow | undefined;
    let ran: { outcome: StepOutcome; durationMs: number };
    try {
      marked = await recordStepStart(row, step, inFlight);
      if (marked === undefined) return undefined;
      ran = await runStep(type, resolvedStep, marked, signal, target.fetch);
    } finally {
      await target.close();
    }
    const { outcome, durationMs } = ran;
    if (signal.aborted) return undefined;
    // The step that sent the one-time code has finished: the code (and any copy of it) is spent.
    const done = spendCode(step, transitionFor(stateOf(marked), marked, outcome, durationMs));
    const after = await advanceInstant(marked, done);
    return commit(marked, after);
  }

  const crashDeps = {
    db,
    workerId,
    now,
    persist: (tx: Tx, row: RunRow, t: Transition, at: number) => persist(tx, row, t, at),
  };

  let lastSweep = 0;

  /** Expires gates and run timeouts that are due; at most once per poll interval. */
  async function sweep(): Promise<void> {
    const at = now();
    if (at - lastSweep < pollMs) return;
    lastSweep = at;
    const expiring = await db
      .select({ id: runs.id })
      .from(runs)
      .where(
        and(inArray(runs.status, RUN_WAITING), isNotNull(runs.waitExpiresAt), lte(runs.waitExpiresAt, at)),
      )
      .limit(100);
    const late = await db
      .select({ id: runs.id })
      .from(runs)
      .where(and(inArray(runs.status, RUN_ACTIVE), lte(runs.deadlineAt, at)))
      .limit(100);
    for (const { id } of expiring) {
      const fired = await writeTx(db, async (tx) => {
        const row = await loadRun(tx, id);
        const t = expireGate(stateOf(row), now());
        return t !== undefined && (await persist(tx, row, t, now())) !== undefined;
      });
      if (fired) observer.timedOut?.("wait_timeout");
    }
    for (const { id } of late) {
      const fired = await writeTx(db, async (tx) => {
        const row = await loadRun(tx, id);
        const t = timeOutRun(stateOf(row));
        return t !== undefined && (await persist(tx, row, t, now())) !== undefined;
      });
      if (fired) {
        observer.timedOut?.("run_timeout");
        controllers.get(id)?.abort(new LeaseLost("run timeout"));
      }
    }
  }

  async function pump(): Promise<void> {
    if (!started) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      do {
        pumpAgain = false;
        await sweep();
        while (started && executions.size < concurrency) {
          const row = await claim();
          if (row === undefined) break;
          const p: Promise<void> = execute(row).finally(() => {
            executions.delete(p);
            kick();
          });
          executions.add(p);
        }
      } while (pumpAgain && started);
    } catch (err) {
      observer.error?.("the run worker failed a round", err);
    } finally {
      pumping = false;
    }
  }

  function kick(): void {
    if (started) setImmediate(() => void pump());
  }

  /** Starts this process's worker: polls, claims, executes, expires gates. Idempotent. */
  function start(): void {
    if (started) return;
    started = true;
    timer = setInterval(() => void pump(), pollMs);
    kick();
  }

  /** Stops the worker, aborts running steps and hands their leases back. */
  async function stop(): Promise<void> {
    if (!started) return;
    started = false;
    if (timer !== undefined) clearInterval(timer);
    for (const c of controllers.values()) c.abort(new LeaseLost("worker stopping"));
    await Promise.allSettled([...executions]);
    // Hand our leases back so another process picks the runs up at once.
    try {
      await writeTx(db, (tx) =>
        tx
          .update(runs)
          .set({ leaseExpiresAt: 0 })
          .where(and(eq(runs.leaseOwner, workerId), eq(runs.status, "running"))),
      );
    } catch (err) {
      observer.error?.("could not hand the leases back; they expire on their own", err);
    }
  }

  /** Tells the outbound policy where this server listens, so `http` steps cannot call its own API. */
  function setServerAddress(address: string, port: number): void {
    outbound.setServerAddress(address, port);
  }

  return {
    workerId,
    setServerAddress,
    createFlow,
    getFlow,
    updateFlow,
    listFlows,
    createTemplate,
    getTemplate,
    updateTemplate,
    listTemplates,
    createRun,
    getRun,
    listRuns,
    resumeRun,
    submitOtp,
    cancelRun: cancel,
    listEvents,
    countRunsByStatus,
    start,
    stop,
  };
}

/** The run engine. */
export type RunsEngine = ReturnType<typeof createRunsEngine>;
