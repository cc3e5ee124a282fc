import { randomBytes } from "node:crypto";
import { randomIds } from "@vetted/store";
import { createSecretBox } from "../../kernel/secret-box.js";
import { executeAction } from "./cu-execute.js";
import { confirmAction, createCuSession, getCuSession, listEvidence, previewAction } from "./cu-sessions.js";
import { evidenceFile } from "./evidence-file.js";
import { releaseOwnPages } from "./page-access.js";
import { createLocalPlanner } from "./planner.js";
import type { ComputerUseEngineOptions, ComputerUseResources } from "./resources.js";

type Tail<F> = F extends (r: never, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/**
 * Creates the computer-use engine: sessions holding an instruction, a planner (the local grammar, or an
 * OpenAI-compatible endpoint) proposing one action at a time against the live page's accessibility tree,
 * risk classification, confirmations, executions that happen once with before/after evidence — all kept
 * in the database.
 */
export function createComputerUseEngine(options: ComputerUseEngineOptions) {
  const clock = options.clock;
  const newId = options.ids ?? randomIds;
  const r: ComputerUseResources = {
    db: options.db,
    browser: options.browser,
    sessions: options.sessions,
    dataDir: options.dataDir,
    protectedDomains: options.protectedDomains,
    box: createSecretBox(options.secretsKey ?? randomBytes(32)),
    planners: { local: createLocalPlanner(), openai: options.planners?.openai },
    now: clock === undefined ? () => Date.now() : () => clock.now(),
    newId,
    owner: newId("cuo"),
    actionTimeoutMs: options.actionTimeoutMs ?? 15_000,
    staleClaimMs: options.staleClaimMs ?? 120_000,
    waitPollMs: options.waitPollMs ?? 25,
    raceHooks: options.raceHooks ?? {},
    ownPages: new Map(),
    chains: new Map(),
  };
  const bind =
    <F extends (res: ComputerUseResources, ...rest: never[]) => unknown>(verb: F) =>
    (...rest: Parameters<Tail<F>>) =>
      verb(r, ...(rest as never[])) as ReturnType<F>;
  return {
    createSession: bind(createCuSession),
    getSession: bind(getCuSession),
    preview: bind(previewAction),
    confirm: bind(confirmAction),
    execute: bind(executeAction),
    listEvidence: bind(listEvidence),
    evidenceFile: bind(evidenceFile),
    /** Closes the pages computer-use sessions opened for themselves. */
    close: () => releaseOwnPages(r),
  };
}

/** The computer-use engine. */
export type ComputerUseEngine = ReturnType<typeof createComputerUseEngine>;
export type { ComputerUseEngineOptions, LiveSessions } from "./resources.js";
