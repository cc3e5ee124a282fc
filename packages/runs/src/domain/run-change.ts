import { z } from "zod";
import { RUN_STATUSES, type RunStatus } from "./status.js";

/** The run events that change how a run appears in the runs list: it was created, or its status changed. */
export const RUN_CHANGE_TYPES = ["run_created", "status_changed"] as const;
/** A kind of run-list change. */
export type RunChangeType = (typeof RUN_CHANGE_TYPES)[number];

/** One change of the runs list: a run was created or moved to another status (into or out of a wait, …). */
export const RunChange = z
  .object({
    id: z.number().int().meta({
      description: "The change's position among the changes of all runs (increasing); the stream's `id:`",
    }),
    run_id: z.string(),
    type: z.enum(RUN_CHANGE_TYPES),
    status: z.enum(RUN_STATUSES).meta({ description: "The run's status after the change" }),
    from: z.enum(RUN_STATUSES).nullable().meta({ description: "Its status before (null when created)" }),
    at: z.string(),
  })
  .meta({ id: "RunChange" });
/** One change of the runs list. */
export type RunChange = z.infer<typeof RunChange>;

function statusOr(value: unknown, fallback: RunStatus): RunStatus {
  return typeof value === "string" && (RUN_STATUSES as readonly string[]).includes(value)
    ? (value as RunStatus)
    : fallback;
}

/** The list change a stored `run_created` or `status_changed` event is (a run is created `queued`). */
export function toRunChange(
  position: number,
  event: { runId: string; type: RunChangeType; data: Record<string, unknown>; at: string },
): RunChange {
  const created = event.type === "run_created";
  return {
    id: position,
    run_id: event.runId,
    type: event.type,
    status: created ? "queued" : statusOr(event.data.to, "queued"),
    from: created ? null : statusOr(event.data.from, "queued"),
    at: event.at,
  };
}
