import { z } from "zod";
import { buildFlowDraft, type DraftStep } from "../../domain/flow-draft.js";
import type { Run } from "../../domain/run.js";
import { stepPageUrls } from "../../domain/tower-draft.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { towerReplays } from "../../store/tower-schema.js";
import { getTowerDraft, pickSession, type TowerDraft } from "./drafts.js";
import type { TowerResources } from "./resources.js";
import { DraftStepNotFoundError } from "./tower-errors.js";

const Params = z.record(z.string(), z.unknown()).optional().meta({
  description:
    "Values of the flow's ${params.x} and ${secrets.x} (a recorded password is ${secrets.password}); with any, the run goes through a template promoted from the replayed flow, so secrets stay sealed",
});

/** What a replay of one step (or from one step) assumes of the page it starts on. */
export const ReplayPreconditions = z
  .object({
    session_state: z.boolean().default(true).meta({
      description:
        "Start with the recorded session's saved cookies and localStorage (its login); default true",
    }),
    navigate: z.boolean().default(true).meta({
      description:
        "First open the page the step acted on (as recorded; else the last navigate before it) as a step pre_<step_id>; default true, ignored for a navigate step",
    }),
  })
  .strict()
  .meta({ id: "ReplayPreconditions" });

/** `POST /api/command-tower/replay-latest`. */
export const TowerReplayInput = z.object({ params: Params }).strict().meta({ id: "TowerReplayInput" });
/** `POST /api/command-tower/replay-latest-from-step` and `replay-latest-step`. */
export const TowerStepReplayInput = z
  .object({
    step_id: z.string().min(1).max(200),
    params: Params,
    replay_preconditions: ReplayPreconditions.optional(),
  })
  .strict()
  .meta({ id: "TowerStepReplayInput" });

/** What a tower replay started: the run, and the flow (and template) it runs. */
export interface TowerReplay {
  session_id: string;
  flow_id: string;
  template_id: string | null;
  start_at_step_id: string | null;
  stop_after_step_id: string | null;
  run: Run;
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success)
    throw new InvalidInputError("REQUEST_INVALID", "The replay request is invalid.", parsed.error.issues);
  return parsed.data;
}

/** The steps with a navigate to the step's page put before it (when it needs one), and where to start. */
function withPrecondition(
  draft: TowerDraft,
  stepId: string,
  navigate: boolean,
  pageUrls: Record<string, string>,
) {
  const at = draft.steps.findIndex((s) => s.id === stepId);
  const step = draft.steps[at];
  if (step === undefined)
    throw new DraftStepNotFoundError(draft.session_id, `The latest flow has no step ${stepId}.`);
  if (!navigate || step.type === "navigate") return { steps: draft.steps, start: stepId };
  const lastNav = draft.steps.slice(0, at).findLast((s) => s.type === "navigate");
  const url = pageUrls[stepId] ?? (lastNav?.type === "navigate" ? lastNav.url : draft.start_url);
  let id = `pre_${stepId}`.slice(0, 64);
  while (draft.steps.some((s) => s.id === id)) id = `p${id}`.slice(0, 64);
  const pre: DraftStep = { id, type: "navigate", url };
  return { steps: [...draft.steps.slice(0, at), pre, ...draft.steps.slice(at)], start: id };
}

interface ReplayPlan {
  steps: DraftStep[];
  start?: string | undefined;
  stop?: string | undefined;
  sessionState: boolean;
  params: Record<string, unknown>;
}

async function startReplay(r: TowerResources, draft: TowerDraft, plan: ReplayPlan): Promise<TowerReplay> {
  const flow = await r.runs.createFlow({ name: `${draft.name} (tower replay)`, steps: plan.steps });
  const template =
    Object.keys(plan.params).length === 0
      ? undefined
      : await r.runs.promoteTemplate({ flow_id: flow.id, template_name: `${draft.name} (tower replay)` });
  const run = await r.runs.createRun({
    ...(template === undefined ? { flow_id: flow.id } : { template_id: template.id }),
    params: plan.params,
    ...(plan.sessionState ? { session_id: draft.session_id } : {}),
    ...(plan.start === undefined ? {} : { start_at_step_id: plan.start }),
    ...(plan.stop === undefined ? {} : { stop_after_step_id: plan.stop }),
  });
  await r.db
    .insert(towerReplays)
    .values({ runId: run.id, sessionId: draft.session_id, flowId: flow.id, createdAt: r.now() });
  return {
    session_id: draft.session_id,
    flow_id: flow.id,
    template_id: template?.id ?? null,
    start_at_step_id: plan.start ?? null,
    stop_after_step_id: plan.stop ?? null,
    run,
  };
}

/** Replays the whole latest flow (as edited). @throws REQUEST_INVALID, SESSION_NOT_FOUND, the run engine's */
export async function replayLatest(r: TowerResources, sessionId: string | undefined, body: unknown) {
  const input = parse(TowerReplayInput, body);
  const draft = await getTowerDraft(r, sessionId);
  return startReplay(r, draft, { steps: draft.steps, sessionState: false, params: input.params ?? {} });
}

/**
 * Replays the latest flow from a step (`only`: that step alone): the run starts there (`start_at_step_id`;
 * earlier steps are not executed), after the preconditions. @throws REQUEST_INVALID, SESSION_NOT_FOUND,
 * STEP_NOT_FOUND, the run engine's
 */
export async function replayLatestFrom(
  r: TowerResources,
  sessionId: string | undefined,
  body: unknown,
  only: boolean,
) {
  const input = parse(TowerStepReplayInput, body);
  const pre = input.replay_preconditions ?? { session_state: true, navigate: true };
  const draft = await getTowerDraft(r, sessionId);
  const session = await pickSession(r, draft.session_id);
  const pageUrls = stepPageUrls(session.events, (events) => buildFlowDraft(draft.start_url, events));
  const { steps, start } = withPrecondition(draft, input.step_id, pre.navigate, pageUrls);
  return startReplay(r, draft, {
    steps,
    start,
    stop: only ? input.step_id : undefined,
    sessionState: pre.session_state,
    params: input.params ?? {},
  });
}
