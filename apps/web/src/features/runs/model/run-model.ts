/**
 * Pure helpers of the run pages: which params a bare flow reads, what a re-run may send again, and the
 * state of every step of the flow from the run's events.
 */

/** What the API shows in place of a secret value (`[redacted]`). */
export const MASKED = "[redacted]";

/** Whether the API masked this value. */
export function isMasked(value: unknown): boolean {
  return value === MASKED;
}

/** The `${params.NAME}` names a flow's steps read, in first-use order (a bare flow has no params schema). */
export function flowParamNames(steps: readonly unknown[]): string[] {
  const names: string[] = [];
  for (const match of JSON.stringify(steps).matchAll(/\$\{params\.([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = match[1];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The params a re-run sends: the run's own, less the secret ones (`secretKeys`, which the API leaves out
 * of a run's params, and any value it masked), whose values never leave the server.
 */
export function rerunParams(
  params: Record<string, unknown>,
  secretKeys: readonly string[] = [],
): { params: Record<string, unknown>; masked: string[] } {
  const kept: Record<string, unknown> = {};
  const masked = [...secretKeys];
  for (const [key, value] of Object.entries(params)) {
    if (isMasked(value) || secretKeys.includes(key)) {
      if (!masked.includes(key)) masked.push(key);
    } else kept[key] = value;
  }
  return { params: kept, masked };
}

/** The run's params as shown: its own, plus each secret of its template as a masked value. */
export function shownParams(
  params: Record<string, unknown>,
  secretKeys: readonly string[],
): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...params };
  for (const key of secretKeys) shown[key] = MASKED;
  return shown;
}

/** Where a step of the flow stands in this run. */
export type StepState = "to come" | "not run" | "running" | "waiting" | "answered" | "rejected" | string;

/** One step of the flow with its state in this run. */
export interface StepRow {
  id: string;
  type: string;
  state: StepState;
  /** Milliseconds from its start to its finish, when both are known. */
  durationMs: number | undefined;
}

interface EventLike {
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/** Every step of the flow (gates and those still to come included), its state from the run's events. */
export function stepRows(
  steps: readonly { id: string; type: string }[],
  events: readonly EventLike[],
  runEnded: boolean,
): StepRow[] {
  const state = new Map<string, StepState>();
  const started = new Map<string, number>();
  const duration = new Map<string, number>();
  for (const e of events) {
    const id = typeof e.data.step_id === "string" ? e.data.step_id : undefined;
    if (id === undefined) continue;
    if (e.type === "step_started") {
      started.set(id, Date.parse(e.at));
      state.set(id, "running");
    } else if (e.type === "gate_opened") state.set(id, "waiting");
    else if (e.type === "gate_resolved") state.set(id, e.data.approved === false ? "rejected" : "answered");
    else if (e.type === "gate_expired") state.set(id, "expired");
    else if (e.type === "step_finished") {
      state.set(id, typeof e.data.outcome === "string" ? e.data.outcome : "finished");
      const begin = started.get(id);
      const ms = typeof e.data.duration_ms === "number" ? e.data.duration_ms : undefined;
      if (ms !== undefined) duration.set(id, ms);
      else if (begin !== undefined) duration.set(id, Date.parse(e.at) - begin);
    }
  }
  return steps.map((s) => ({
    id: s.id,
    type: s.type,
    state: state.get(s.id) ?? (runEnded ? "not run" : "to come"),
    durationMs: duration.get(s.id),
  }));
}

/** "approved by local: Looks right" — a gate_resolved event as a sentence, or undefined for other events. */
export function gateAnswer(e: EventLike): string | undefined {
  if (e.type !== "gate_resolved") return undefined;
  const what =
    e.data.approved === true
      ? "approved"
      : e.data.approved === false
        ? "rejected"
        : `answered (${String(e.data.kind)})`;
  const who = typeof e.data.answered_by === "string" ? ` by ${e.data.answered_by}` : "";
  const comment = typeof e.data.comment === "string" ? `: “${e.data.comment}”` : "";
  return `${what}${who}${comment}`;
}
