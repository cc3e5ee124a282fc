import { executeInTx, type Tx } from "@vetted/store";
import { eq, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { z } from "zod";
import type { EventType } from "../domain/run.js";
import { isTerminal, statusesReaching } from "../domain/status.js";
import type { Transition } from "../domain/transitions.js";
import { InvalidInputError, RunNotFoundError } from "../kernel/errors.js";
import { runs } from "../store/schema.js";
import { noteEvents, type RunsResources, type TransitionChange } from "./resources.js";
import { insertEventsStatement, type RunCondition, updateRunStatement } from "./run-sql.js";
import type { RunRow } from "./views.js";

/** Which write may land: a verb's compare-and-set on `version`, or a worker's lease token. */
export type PersistGuard = { version: number } | { leaseOwner: string };

/** What a transition writes: the run's columns (all of them a transition sets) and its events. */
export interface Written {
  changes: Partial<RunRow> & TransitionChange;
  events: ReadonlyArray<{ type: EventType; data: Record<string, unknown> }>;
}

/**
 * What a transition of `row` writes, secrets and one-time codes sealed or redacted first (see
 * {@link persist}); `extra` columns are written with it.
 */
export function planTransition(
  r: RunsResources,
  row: RunRow,
  t: Transition,
  at: number,
  extra?: Partial<RunRow>,
): Written {
  const safe = r.vault.protect(row, t);
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
    eventSeq: row.eventSeq + safe.events.length,
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
    ...extra,
  } satisfies Partial<RunRow>;
  return { changes, events: safe.events };
}

/**
 * Writes what {@link planTransition} planned for `row`, guarded (see {@link persist}); with `liveAt`, only
 * while the run's lease is live at that time. Returns the row as written, or undefined when the guard did
 * not hold.
 */
export async function writeTransition(
  r: RunsResources,
  tx: Tx,
  row: RunRow,
  w: Written,
  at: number,
  guard: PersistGuard,
  liveAt?: number,
): Promise<RunRow | undefined> {
  const status = w.changes.status;
  const where: RunCondition[] = [
    { column: "id", op: "=", value: row.id },
    // The state table, read backwards: only a row in a status that can reach the written one is written.
    { column: "status", op: "in", values: statusesReaching(status) },
    "leaseOwner" in guard
      ? { column: "leaseOwner", op: "=", value: guard.leaseOwner }
      : { column: "version", op: "=", value: guard.version },
    ...(liveAt === undefined ? [] : [{ column: "leaseExpiresAt" as const, op: ">" as const, value: liveAt }]),
  ];
  const update = updateRunStatement(changedColumns(row, w.changes), where);
  const result = await executeInTx(r.db, tx, update.sql, update.args);
  if (result.rowsAffected === 0) return undefined;
  await appendEvents(r, tx, row.id, row.eventSeq, w.events, at);
  for (const hook of r.transitionHooks) await hook(tx, row, w.changes, at, r.newId);
  return { ...row, ...w.changes };
}

/**
 * Writes one transition of a run, guarded: a verb (resume, cancel, claim, sweep) writes only if the run
 * is still at the version it decided on; the worker executing a run writes only while its lease token is
 * the run's (a re-claim, a cancel or a timeout replaces or clears it). Either way the row must be in a status
 * from which the state table reaches the written one (never a run that ended). Secrets and one-time codes are
 * sealed or redacted before anything is written. Returns undefined when the guard did not hold.
 */
export async function persist(
  r: RunsResources,
  tx: Tx,
  row: RunRow,
  t: Transition,
  at: number,
  opts: { guard?: PersistGuard; extra?: Partial<RunRow> } = {},
): Promise<RunRow | undefined> {
  const planned = planTransition(r, row, t, at, opts.extra);
  return writeTransition(r, tx, row, planned, at, opts.guard ?? { version: row.version });
}

/**
 * Columns another writer may change under a held lease or version (the heartbeat and the gone-owner sweep
 * move the lease's expiry), and the clock: always written when a transition sets them.
 */
const ALWAYS_WRITTEN: ReadonlySet<string> = new Set(["leaseOwner", "leaseExpiresAt", "updatedAt"]);

/** Whether two column values are equal (JSON columns by their serialized form; a reordering counts as a change). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The part of `changes` that differs from `row`: a transition's UPDATE names only the columns it changes
 * (most move the cursor, the version and a few more, not the vars, gate, secrets or wait context). The
 * guard that let the write land (version or lease) makes `row` the stored row in every other column.
 */
export function changedColumns(row: RunRow, changes: Partial<RunRow>): Partial<RunRow> {
  const current: Partial<RunRow> = row;
  const entries = Object.entries(changes).filter(
    ([key, value]) => ALWAYS_WRITTEN.has(key) || !sameValue(current[key as keyof RunRow], value),
  );
  return Object.fromEntries(entries) as Partial<RunRow>;
}

/** Appends events after `afterSeq`; the hub hears of them (and is handed them) once the transaction commits. */
export async function appendEvents(
  r: Pick<RunsResources, "db">,
  tx: Tx,
  runId: string,
  afterSeq: number,
  drafts: ReadonlyArray<{ type: EventType; data: Record<string, unknown> }>,
  at: number,
): Promise<void> {
  if (drafts.length === 0) return;
  const insert = insertEventsStatement(runId, afterSeq, drafts, at);
  await executeInTx(r.db, tx, insert.sql, insert.args);
  noteEvents(tx, runId, insert.rows);
}

/** The run's row, read in the transaction `tx`. @throws RunNotFoundError */
export async function loadRun(tx: Tx, runId: string): Promise<RunRow> {
  const [row] = await tx.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (row === undefined) throw new RunNotFoundError(runId);
  return row;
}

function runByIdQuery(db: LibSQLDatabase) {
  return db
    .select()
    .from(runs)
    .where(eq(runs.id, sql.placeholder("id")))
    .limit(1)
    .prepare();
}

/** The read of a run by id, prepared once per database (a resume, the run page and the API read it). */
const runById = new WeakMap<LibSQLDatabase, ReturnType<typeof runByIdQuery>>();

/** The run's row, read outside any transaction. @throws RunNotFoundError */
export async function readRun(db: LibSQLDatabase, runId: string): Promise<RunRow> {
  let query = runById.get(db);
  if (query === undefined) {
    query = runByIdQuery(db);
    runById.set(db, query);
  }
  const [row] = await query.all({ id: runId });
  if (row === undefined) throw new RunNotFoundError(runId);
  return row;
}

/** Parses `input` with `schema`, or throws {@link InvalidInputError} with every issue. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: ConstructorParameters<typeof InvalidInputError>[0],
  what: string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
  const first = issues[0];
  throw new InvalidInputError(
    code,
    `${what} is invalid: ${first?.path ?? ""} ${first?.message ?? ""}`.trim(),
    {
      issues,
    },
  );
}
