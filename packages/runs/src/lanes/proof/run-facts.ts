import { and, asc, desc, eq, inArray, ne } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { FactEvent, FactEvidence, RunFacts } from "../../domain/proof/facts.js";
import type { EventType } from "../../domain/run.js";
import type { Step } from "../../domain/steps.js";
import { FlowNotFoundError, RunNotFoundError, TemplateNotFoundError } from "../../kernel/errors.js";
import { events, evidence, flows, flowVersions, runs, templates } from "../../store/schema.js";

/** How many of a template's latest other runs its step-time history is read from. */
export const HISTORY_RUNS = 200;
const CHUNK = 400;

function chunks<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

function groupByRun<T extends { runId: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(row.runId);
    if (list === undefined) out.set(row.runId, [row]);
    else list.push(row);
  }
  return out;
}

/**
 * The facts of `runIds` (rows, event logs, browser evidence), in the order given.
 * @throws RUN_NOT_FOUND naming the first id with no run
 */
export async function loadRunFacts(db: LibSQLDatabase, runIds: readonly string[]): Promise<RunFacts[]> {
  const byId = new Map<string, RunFacts>();
  for (const ids of chunks([...new Set(runIds)])) {
    const rows = await db.select().from(runs).where(inArray(runs.id, ids));
    const evs = await db
      .select()
      .from(events)
      .where(inArray(events.runId, ids))
      .orderBy(asc(events.runId), asc(events.seq));
    const shots = await db
      .select()
      .from(evidence)
      .where(inArray(evidence.runId, ids))
      .orderBy(asc(evidence.runId), asc(evidence.seq));
    const eventsOf = groupByRun(evs);
    const shotsOf = groupByRun(shots);
    for (const row of rows) {
      byId.set(row.id, {
        id: row.id,
        templateId: row.templateId,
        status: row.status,
        reason: row.reason,
        error: row.error,
        steps: row.steps,
        createdAt: row.createdAt,
        finishedAt: row.finishedAt,
        events: (eventsOf.get(row.id) ?? []).map(
          (e): FactEvent => ({ type: e.type as EventType, data: e.data, at: e.at }),
        ),
        evidence: (shotsOf.get(row.id) ?? []).map(
          (x): FactEvidence => ({
            stepId: x.stepId,
            stepType: x.stepType,
            outcome: x.outcome,
            durationMs: x.durationMs,
            detail: x.detail,
            screenshots: x.screenshots,
          }),
        ),
      });
    }
  }
  return runIds.map((id) => {
    const facts = byId.get(id);
    if (facts === undefined) throw new RunNotFoundError(id);
    return facts;
  });
}

/** The run ids of `runIds` that do not exist. */
export async function missingRuns(db: LibSQLDatabase, runIds: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const ids of chunks([...new Set(runIds)])) {
    const rows = await db.select({ id: runs.id }).from(runs).where(inArray(runs.id, ids));
    for (const row of rows) found.add(row.id);
  }
  return runIds.filter((id) => !found.has(id));
}

/**
 * How long each step took in the template's latest {@link HISTORY_RUNS} other runs: step id → one total a
 * run (summed when a step ran more than once in it).
 */
export async function templateHistory(
  db: LibSQLDatabase,
  templateId: string,
  exceptRunId: string,
): Promise<Map<string, number[]>> {
  const others = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.templateId, templateId), ne(runs.id, exceptRunId)))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(HISTORY_RUNS);
  const perRun = new Map<string, Map<string, number>>();
  for (const ids of chunks(others.map((o) => o.id))) {
    const rows = await db
      .select({ runId: events.runId, data: events.data })
      .from(events)
      .where(and(inArray(events.runId, ids), eq(events.type, "step_finished")));
    for (const row of rows) {
      const stepId = row.data.step_id;
      const ms = row.data.duration_ms;
      if (typeof stepId !== "string" || typeof ms !== "number") continue;
      const steps = perRun.get(row.runId) ?? new Map<string, number>();
      steps.set(stepId, (steps.get(stepId) ?? 0) + ms);
      perRun.set(row.runId, steps);
    }
  }
  const out = new Map<string, number[]>();
  for (const steps of perRun.values()) {
    for (const [stepId, ms] of steps) out.set(stepId, [...(out.get(stepId) ?? []), ms]);
  }
  return out;
}

/** A template's policies and the steps of the flow version it runs. @throws TEMPLATE_NOT_FOUND, FLOW_NOT_FOUND */
export async function loadTemplateSteps(db: LibSQLDatabase, templateId: string) {
  const [template] = await db.select().from(templates).where(eq(templates.id, templateId)).limit(1);
  if (template === undefined) throw new TemplateNotFoundError(templateId);
  let steps: Step[] | undefined;
  if (template.flowVersion === null) {
    const [flow] = await db.select().from(flows).where(eq(flows.id, template.flowId)).limit(1);
    steps = flow?.steps;
  } else {
    const [flow] = await db
      .select()
      .from(flowVersions)
      .where(and(eq(flowVersions.flowId, template.flowId), eq(flowVersions.version, template.flowVersion)))
      .limit(1);
    steps = flow?.steps;
  }
  if (steps === undefined) throw new FlowNotFoundError(template.flowId, template.flowVersion ?? undefined);
  return { template, steps };
}
