import { assertJsonDepth, type KeysetPage, type Tx } from "@vetted/store";
import { and, desc, eq, sql } from "drizzle-orm";
import { type Flow, FlowInput, FlowPatch } from "../domain/flow.js";
import type { Step } from "../domain/steps.js";
import { assertStepPatterns } from "../domain/user-patterns.js";
import { FlowNotFoundError, VersionConflictError } from "../kernel/errors.js";
import { flows, flowVersions } from "../store/schema.js";
import { type ListQuery, newestFirstAfter, newestFirstPage, pageLimit } from "./lists.js";
import { parseInput } from "./persist.js";
import type { RunsResources } from "./resources.js";
import { toFlow } from "./views.js";

/** The flow's steps at `version`, or at its latest version when `version` is null. @throws FLOW_NOT_FOUND */
export async function flowAt(
  tx: Tx,
  flowId: string,
  version: number | null,
): Promise<{ version: number; steps: Step[] }> {
  if (version === null) {
    // Plain SQL, not the query builder: every run's creation reads it.
    const [row] = await tx.all<{ version: number; steps: string }>(
      sql`select ${flows.version}, ${flows.steps} from ${flows} where ${flows.id} = ${flowId} limit 1`,
    );
    if (row === undefined) throw new FlowNotFoundError(flowId);
    const steps: Step[] = JSON.parse(row.steps);
    return { version: row.version, steps };
  }
  const [row] = await tx
    .select()
    .from(flowVersions)
    .where(and(eq(flowVersions.flowId, flowId), eq(flowVersions.version, version)))
    .limit(1);
  if (row === undefined) throw new FlowNotFoundError(flowId, version);
  return { version: row.version, steps: row.steps };
}

/** Stores a new flow at version 1. @throws FLOW_INVALID */
export async function createFlow(r: RunsResources, input: FlowInput): Promise<Flow> {
  assertJsonDepth(input, "The flow");
  const flow = parseInput(FlowInput, input, "FLOW_INVALID", "The flow");
  assertStepPatterns(flow.steps);
  const at = r.now();
  const id = r.newId("flow");
  const row = { id, name: flow.name, version: 1, steps: flow.steps, createdAt: at, updatedAt: at };
  await r.write(async (tx) => {
    await tx.insert(flows).values(row);
    await tx
      .insert(flowVersions)
      .values({ flowId: id, version: 1, name: flow.name, steps: flow.steps, createdAt: at });
  });
  return toFlow(row);
}

/** The flow at its latest version. @throws FLOW_NOT_FOUND */
export async function getFlow(r: RunsResources, flowId: string): Promise<Flow> {
  const [row] = await r.db.select().from(flows).where(eq(flows.id, flowId)).limit(1);
  if (row === undefined) throw new FlowNotFoundError(flowId);
  return toFlow(row);
}

/** Changes a flow and bumps its version (older versions stay for pinned templates). @throws FLOW_NOT_FOUND, VERSION_CONFLICT */
export async function updateFlow(r: RunsResources, flowId: string, patch: FlowPatch): Promise<Flow> {
  assertJsonDepth(patch, "The flow");
  const p = parseInput(FlowPatch, patch, "FLOW_INVALID", "The flow");
  assertStepPatterns(p.steps ?? []);
  const at = r.now();
  return r.write(async (tx) => {
    const [row] = await tx.select().from(flows).where(eq(flows.id, flowId)).limit(1);
    if (row === undefined) throw new FlowNotFoundError(flowId);
    if (p.expected_version !== undefined && p.expected_version !== row.version) {
      throw new VersionConflictError(`The flow is at version ${row.version}, not ${p.expected_version}.`, {
        version: row.version,
      });
    }
    const next = {
      name: p.name ?? row.name,
      steps: p.steps ?? row.steps,
      version: row.version + 1,
      updatedAt: at,
    };
    const [updated] = await tx.update(flows).set(next).where(eq(flows.id, flowId)).returning();
    if (updated === undefined) throw new FlowNotFoundError(flowId);
    await tx
      .insert(flowVersions)
      .values({ flowId, version: next.version, name: next.name, steps: next.steps, createdAt: at });
    return toFlow(updated);
  });
}

/** Flows, newest first. @throws CURSOR_INVALID */
export async function listFlows(r: RunsResources, query: ListQuery = {}): Promise<KeysetPage<Flow>> {
  const limit = pageLimit(query.limit);
  const rows = await r.db
    .select()
    .from(flows)
    .where(newestFirstAfter(flows, "flows", query.cursor))
    .orderBy(desc(flows.createdAt), desc(flows.id))
    .limit(limit + 1);
  return newestFirstPage(rows, limit, "flows", toFlow);
}
