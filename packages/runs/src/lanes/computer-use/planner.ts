import type { AriaNode } from "../../domain/aria-snapshot.js";
import { type PlanInput, type PlanResult, planLocally } from "../../domain/cu-grammar.js";

/** What a planner is asked: the instruction, the live page (URL, accessibility tree) and a screenshot. */
export interface PlannerRequest extends PlanInput {
  nodes: readonly AriaNode[];
  /** The screenshot the caller sent with the preview, or a fresh one of the live page. */
  screenshot: { data: Buffer; mimeType: string };
  signal: AbortSignal;
}

/**
 * The planner port: proposes one action for an instruction on a page. The default is the local
 * deterministic grammar; `createOpenAiPlanner` asks an OpenAI-compatible chat endpoint.
 */
export interface Planner {
  plan(request: PlannerRequest): Promise<PlanResult>;
}

/** The local planner: {@link planLocally} over the page's accessibility tree. No network, no model. */
export function createLocalPlanner(): Planner {
  return { plan: async (request) => planLocally(request) };
}
