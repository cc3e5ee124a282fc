import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { DraftStep } from "../domain/flow-draft.js";

/**
 * The command tower's edited flow drafts: one per finished session, versioned (every PATCH bumps
 * `version`; a PATCH whose `expected_version` is stale changes nothing). Re-exported by `schema.ts`.
 */
export const towerDrafts = sqliteTable("runs_tower_drafts", {
  sessionId: text("session_id").primaryKey(),
  version: integer("version").notNull(),
  steps: text("steps", { mode: "json" }).$type<DraftStep[]>().notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Runs the command tower started from a session's flow (replays), newest last. */
export const towerReplays = sqliteTable(
  "runs_tower_replays",
  {
    runId: text("run_id").primaryKey(),
    sessionId: text("session_id").notNull(),
    flowId: text("flow_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("runs_tower_replays_session_idx").on(t.sessionId, t.createdAt)],
);
