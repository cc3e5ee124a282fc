// The computer-use lane: a planner drives a browser page one instruction at a time, with sealed secrets and evidence.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export {
  type ComputerUseEngine,
  type ComputerUseEngineOptions,
  createComputerUseEngine,
  type LiveSessions,
} from "./cu-engine.js";
export { createOpenAiPlanner, type OpenAiPlannerOptions } from "./openai-planner.js";
export { createLocalPlanner, type Planner, type PlannerRequest } from "./planner.js";
