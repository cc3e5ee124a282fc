import type { InValue } from "@libsql/client";
import type { HeldStatement } from "@vetted/store";
import { getTableColumns } from "drizzle-orm";
import type { EventType } from "../domain/run.js";
import type { StoredEvent } from "../kernel/hub.js";
import { events, runs } from "../store/schema.js";
import type { RunRow } from "./views.js";

/**
 * The statements of the worker's hot path (a transition's UPDATE, its events' INSERT), as SQL text built
 * once per shape and cached: Drizzle's query builder costs several times the statement itself, and a run
 * writes the same few shapes at every step. Values are encoded as Drizzle encodes them (JSON columns as
 * JSON text, NULL as NULL), so a row reads back the same either way.
 */

const columns = getTableColumns(runs);
type RunColumn = keyof typeof columns;

/** One condition of an UPDATE's WHERE: a column equal to, greater than, or in a list of values. */
export type RunCondition =
  | { column: RunColumn; op: "=" | ">"; value: InValue }
  | { column: RunColumn; op: "in"; values: readonly InValue[] };

const MAX_CACHED = 256;
const updateTexts = new Map<string, string>();
const insertTexts = new Map<number, string>();

function remember<K>(cache: Map<K, string>, key: K, build: () => string): string {
  let text = cache.get(key);
  if (text === undefined) {
    text = build();
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, text);
  }
  return text;
}

function quoted(column: RunColumn): string {
  return `"${columns[column].name}"`;
}

/** A value as the driver stores it in `column` (Drizzle's own encoding). */
function encode(column: RunColumn, value: unknown): InValue {
  if (value === null) return null;
  return columns[column].mapToDriverValue(value) as InValue;
}

function conditionText(c: RunCondition): string {
  if (c.op === "in") return `${quoted(c.column)} in (${c.values.map(() => "?").join(", ")})`;
  return `${quoted(c.column)} ${c.op} ?`;
}

/** `UPDATE runs_runs SET <the set's columns> WHERE <every condition>` (undefined values are left out). */
export function updateRunStatement(set: Partial<RunRow>, where: readonly RunCondition[]): HeldStatement {
  const keys = (Object.keys(set) as RunColumn[]).filter((key) => set[key] !== undefined);
  const shape = `${keys.join(",")}|${where.map((c) => `${c.column}${c.op}${c.op === "in" ? c.values.length : ""}`).join(",")}`;
  const sql = remember(updateTexts, shape, () => {
    const assignments = keys.map((key) => `${quoted(key)} = ?`).join(", ");
    return `update "runs_runs" set ${assignments} where ${where.map(conditionText).join(" and ")}`;
  });
  const args: InValue[] = keys.map((key) => encode(key, set[key]));
  for (const c of where) {
    if (c.op === "in") args.push(...c.values);
    else args.push(c.value);
  }
  return { sql, args };
}

const eventColumns = getTableColumns(events);

/** `INSERT INTO runs_events` of `drafts`, numbered after `afterSeq`, with the rows as stored. */
export function insertEventsStatement(
  runId: string,
  afterSeq: number,
  drafts: ReadonlyArray<{ type: EventType; data: Record<string, unknown> }>,
  at: number,
): HeldStatement & { rows: StoredEvent[] } {
  const sql = remember(insertTexts, drafts.length, () => {
    const names = [
      eventColumns.runId,
      eventColumns.seq,
      eventColumns.type,
      eventColumns.data,
      eventColumns.at,
    ]
      .map((c) => `"${c.name}"`)
      .join(", ");
    const rows = drafts.map(() => "(?, ?, ?, ?, ?)").join(", ");
    return `insert into "runs_events" (${names}) values ${rows}`;
  });
  const args: InValue[] = [];
  const rows = drafts.map((e, i): StoredEvent => {
    const row = {
      seq: afterSeq + i + 1,
      type: e.type,
      json: String(eventColumns.data.mapToDriverValue(e.data)),
      at,
    };
    args.push(runId, row.seq, row.type, row.json, at);
    return row;
  });
  return { sql, args, rows };
}

const runKeys = Object.keys(columns) as RunColumn[];
const selectRunText = `select ${runKeys.map(quoted).join(", ")} from "runs_runs" where "id" = ? limit 1`;
const insertRunText = `insert into "runs_runs" (${runKeys.map(quoted).join(", ")}) values (${runKeys.map(() => "?").join(", ")})`;

/** `SELECT` of one run's whole row by id; {@link decodeRun} reads its result row. */
export function selectRunStatement(id: string): HeldStatement {
  return { sql: selectRunText, args: [id] };
}

/** A run's row from the driver's result row of {@link selectRunStatement} (Drizzle's own decoding). */
export function decodeRun(raw: Readonly<Record<string, unknown>>): RunRow {
  const row: Record<string, unknown> = {};
  for (const key of runKeys) {
    const value = raw[columns[key].name];
    row[key] = value === null || value === undefined ? null : columns[key].mapFromDriverValue(value);
  }
  return row as RunRow;
}

/** `INSERT` of a new run's whole row. */
export function insertRunStatement(row: RunRow): HeldStatement {
  return { sql: insertRunText, args: runKeys.map((key) => encode(key, row[key] ?? null)) };
}
