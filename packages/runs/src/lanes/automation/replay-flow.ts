import type { CreateRunInput, Run } from "../../domain/run.js";
import type { AutomationCommand } from "./commands.js";

/** What `replay-flow` needs of the run engine. */
export interface RunStarter {
  createRun(input: CreateRunInput): Promise<Run>;
}

/** What to replay: a flow or a template (exactly one), its params, and optionally the step to start at. */
export interface ReplayFlowInput {
  flow_id?: string | undefined;
  template_id?: string | undefined;
  params?: Record<string, unknown> | undefined;
  /** The run executes from this step; earlier steps are skipped (`start_at_step_id` of the run). */
  from_step_id?: string | undefined;
}

/**
 * Starts a run of a flow or template, optionally from one of its steps. The verb behind the `replay-flow`
 * command, exported for other callers (the command tower). @throws the run engine's errors
 * (FLOW_NOT_FOUND, TEMPLATE_NOT_FOUND, PARAMS_INVALID, REQUEST_INVALID for an unknown step, …)
 */
export function replayFlow(runs: RunStarter, input: ReplayFlowInput): Promise<Run> {
  return runs.createRun({
    ...(input.flow_id === undefined ? {} : { flow_id: input.flow_id }),
    ...(input.template_id === undefined ? {} : { template_id: input.template_id }),
    params: input.params ?? {},
    ...(input.from_step_id === undefined ? {} : { start_at_step_id: input.from_step_id }),
  });
}

/** The params schema of `replay-flow`. */
export const REPLAY_FLOW_PARAMS = {
  type: "object",
  properties: {
    flow_id: { type: "string", minLength: 1 },
    template_id: { type: "string", minLength: 1 },
    params: { type: "object" },
    from_step_id: { type: "string", minLength: 1 },
  },
  additionalProperties: false,
} as const;

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The built-in `replay-flow` command: starts a run (answers at once; the run goes on in the run engine). */
export function createReplayFlowCommand(runs: RunStarter): AutomationCommand {
  return {
    id: "replay-flow",
    title: "Replay a flow",
    description:
      "Start a run of a flow or a template (give exactly one), optionally from one of its steps (from_step_id).",
    paramsSchema: { ...REPLAY_FLOW_PARAMS },
    tags: ["runs"],
    highRisk: false,
    idempotent: false,
    timeoutS: 60,
    retries: 0,
    async execute(ctx) {
      const p = ctx.params;
      const params =
        typeof p.params === "object" && p.params !== null ? (p.params as Record<string, unknown>) : {};
      const run = await replayFlow(runs, {
        flow_id: optionalString(p.flow_id),
        template_id: optionalString(p.template_id),
        params,
        from_step_id: optionalString(p.from_step_id),
      });
      ctx.log(`started run ${run.id} (status ${run.status})`, "system");
      return { ok: true, exitCode: 0, message: `started run ${run.id}` };
    },
  };
}
