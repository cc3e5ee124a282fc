import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { ActionStatus, CuExecution, PlannerKind } from "../domain/computer-use.js";
import type { FlowDraftBody } from "../domain/flow-draft.js";
import type { RecordedEvent } from "../domain/recording.js";
import type { ActionName, RiskLevel } from "../domain/risk.js";
import type { SessionStatus, StoredArtifact } from "../domain/session.js";

/*
 * The tables of the browser lanes: recording sessions, computer-use sessions, their proposed actions and
 * evidence. Re-exported by `schema.ts`, so drizzle-kit and `migrate()` see them with the others.
 */

/** Recording sessions: a live browser context while `active`; storage state, artifacts and draft once finished. */
export const sessions = sqliteTable(
  "runs_sessions",
  {
    id: text("id").primaryKey(),
    status: text("status", { enum: ["active", "finished", "failed"] })
      .$type<SessionStatus>()
      .notNull(),
    mode: text("mode", { enum: ["manual", "ai"] }).notNull(),
    startUrl: text("start_url").notNull(),
    currentUrl: text("current_url"),
    storageStateFrom: text("storage_state_from"),
    /** The saved storage state (cookies, localStorage), relative to the data directory. */
    storageStatePath: text("storage_state_path"),
    /** The process holding the live context (its engine's owner id). */
    owner: text("owner").notNull(),
    events: text("events", { mode: "json" }).$type<RecordedEvent[]>().notNull(),
    eventCount: integer("event_count").notNull(),
    draft: text("draft", { mode: "json" }).$type<FlowDraftBody>(),
    artifacts: text("artifacts", { mode: "json" }).$type<StoredArtifact[]>().notNull(),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [index("runs_sessions_created_idx").on(t.createdAt, t.id)],
);

/** Computer-use sessions: an instruction, acted on in a recording session's page or the lane's own. */
export const cuSessions = sqliteTable(
  "runs_cu_sessions",
  {
    id: text("id").primaryKey(),
    /** The instruction as shown: the text it types into a secret field reads `[redacted]`. */
    instruction: text("instruction").notNull(),
    /** The whole instruction sealed with the secrets key, when it types into a secret field. */
    instructionSealed: text("instruction_sealed"),
    sessionId: text("session_id"),
    planner: text("planner", { enum: ["local", "openai"] })
      .$type<PlannerKind>()
      .notNull(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    actionCount: integer("action_count").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("runs_cu_sessions_created_idx").on(t.createdAt, t.id)],
);

/** Proposed actions: their risk, confirmation, the claim of the one execution and its result. */
export const cuActions = sqliteTable(
  "runs_cu_actions",
  {
    id: text("id").primaryKey(),
    cuSessionId: text("cu_session_id").notNull(),
    seq: integer("seq").notNull(),
    name: text("name").$type<ActionName>().notNull(),
    /** The action's arguments as shown: text typed into a secret field reads `[redacted]`. */
    args: text("args", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The secret text a `type` action types, sealed with the secrets key until it executed (then null). */
    secretSealed: text("secret_sealed"),
    /**
     * Where the action acted and what it would reach when it was previewed: the page's URL, the URL of
     * the frame it acts in, the URLs it would send the page to. An execute finding otherwise is stale.
     */
    reach: text("reach", { mode: "json" }).$type<{
      page_url: string;
      frame_url: string;
      targets: string[];
    }>(),
    rationale: text("rationale").notNull(),
    riskLevel: text("risk_level", { enum: ["low", "medium", "high", "critical"] })
      .$type<RiskLevel>()
      .notNull(),
    requireConfirmation: integer("require_confirmation", { mode: "boolean" }).notNull(),
    actionDigest: text("action_digest").notNull(),
    providerDomain: text("provider_domain"),
    status: text("status", {
      enum: ["proposed", "approved", "rejected", "executing", "executed", "failed"],
    })
      .$type<ActionStatus>()
      .notNull(),
    confirmation: text("confirmation", { mode: "json" }).$type<{
      approved: boolean;
      reason: string | null;
      at: number;
    }>(),
    /** The execution's result once `executed` or `failed` (every later execute call answers it). */
    result: text("result", { mode: "json" }).$type<Omit<CuExecution, "action">>(),
    /** Who claimed the execution (compare-and-set from proposed/approved to executing) and when. */
    claimedBy: text("claimed_by"),
    claimedAt: integer("claimed_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("runs_cu_actions_session_idx").on(t.cuSessionId, t.seq)],
);

/** Evidence files of computer-use sessions (screenshots under the data directory) with URL and summary. */
export const cuEvidence = sqliteTable(
  "runs_cu_evidence",
  {
    id: text("id").primaryKey(),
    cuSessionId: text("cu_session_id").notNull(),
    actionId: text("action_id"),
    kind: text("kind", { enum: ["preview_screenshot", "before_screenshot", "after_screenshot"] }).notNull(),
    /** Relative to the data directory. */
    path: text("path").notNull(),
    contentType: text("content_type").notNull(),
    bytes: integer("bytes").notNull(),
    sha256: text("sha256").notNull(),
    url: text("url"),
    summary: text("summary"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("runs_cu_evidence_session_idx").on(t.cuSessionId, t.createdAt, t.id)],
);
