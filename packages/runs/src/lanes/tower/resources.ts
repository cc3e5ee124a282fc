import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { Flow, FlowInput } from "../../domain/flow.js";
import type { CreateRunInput, Run } from "../../domain/run.js";
import type { Template } from "../../domain/template.js";
import type { PromoteInput } from "../../domain/template-lifecycle.js";

/** What the command tower needs of the run engine (flows, templates, runs). */
export interface TowerRuns {
  createFlow(input: FlowInput): Promise<Flow>;
  promoteTemplate(input: PromoteInput): Promise<Template>;
  createRun(input: CreateRunInput): Promise<Run>;
}

/** What {@link createTowerEngine} is built from. */
export interface TowerEngineOptions {
  db: LibSQLDatabase;
  runs: TowerRuns;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** Test seams for races: awaited between reading the draft and writing an edit. */
  raceHooks?: { beforeDraftWrite?(sessionId: string): Promise<void> };
}

/** The tower's resources, as its verbs receive them. */
export interface TowerResources {
  db: LibSQLDatabase;
  runs: TowerRuns;
  now: () => number;
  raceHooks: { beforeDraftWrite?(sessionId: string): Promise<void> };
}
