import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Step } from "../core/steps/registry.js";
import type { WaitContext } from "../domain/run.js";
import type { EndReason, RunStatus } from "../domain/status.js";
import type { ParamSpec, Policies } from "../domain/template.js";
import { TEMPLATE_STATUSES, type TemplateStatus } from "../domain/template-status.js";
import type { GateValues } from "../domain/transitions.js";

/** Flows at their latest version. */
export const flows = sqliteTable("runs_flows", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  version: integer("version").notNull(),
  steps: text("steps", { mode: "json" }).$type<Step[]>().notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Every version a flow ever had, so templates can pin one. */
export const flowVersions = sqliteTable(
  "runs_flow_versions",
  {
    flowId: text("flow_id").notNull(),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    steps: text("steps", { mode: "json" }).$type<Step[]>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.flowId, t.version] })],
);

/** Templates: a flow, declared params, defaults and policies. */
export const templates = sqliteTable(
  "runs_templates",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    flowId: text("flow_id").notNull(),
    flowVersion: integer("flow_version"),
    paramsSchema: text("params_schema", { mode: "json" }).$type<ParamSpec[]>().notNull(),
    defaults: text("defaults", { mode: "json" }).$type<Record<string, string | number | boolean>>().notNull(),
    policies: text("policies", { mode: "json" }).$type<Policies>().notNull(),
    version: integer("version").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** The lifecycle (migration 0008): every version of a template shares a family id. */
    familyId: text("template_family_id").notNull().default(""),
    parentTemplateId: text("parent_template_id"),
    familyVersion: integer("family_version").notNull().default(1),
    status: text("status", { enum: TEMPLATE_STATUSES }).$type<TemplateStatus>().notNull().default("active"),
    recommended: integer("recommended", { mode: "boolean" }).notNull().default(false),
    changeNote: text("change_note"),
  },
  (t) => [
    uniqueIndex("runs_templates_family_version").on(t.familyId, t.familyVersion),
    /** At most one recommended version per family, whatever writes it. */
    uniqueIndex("runs_templates_one_recommended").on(t.familyId).where(sql`recommended = 1`),
    /** At most one active version per family. */
    uniqueIndex("runs_templates_one_active").on(t.familyId).where(sql`status = 'active'`),
  ],
);

/** Runs: the steps and policies they started with, their state, and the worker lease. */
export const runs = sqliteTable(
  "runs_runs",
  {
    id: text("id").primaryKey(),
    flowId: text("flow_id").notNull(),
    flowVersion: integer("flow_version").notNull(),
    templateId: text("template_id"),
    steps: text("steps", { mode: "json" }).$type<Step[]>().notNull(),
    policies: text("policies", { mode: "json" }).$type<Policies>().notNull(),
    params: text("params", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    secrets: text("secrets", { mode: "json" }).$type<Record<string, string>>().notNull(),
    status: text("status", {
      enum: ["queued", "running", "waiting_otp", "waiting_user", "success", "failed", "cancelled"],
    })
      .$type<RunStatus>()
      .notNull(),
    version: integer("version").notNull(),
    cursor: integer("cursor").notNull(),
    vars: text("vars", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    gate: text("gate", { mode: "json" }).$type<GateValues>().notNull(),
    waitContext: text("wait_context", { mode: "json" }).$type<WaitContext>(),
    waitExpiresAt: integer("wait_expires_at"),
    reason: text("reason").$type<EndReason>(),
    error: text("error"),
    otpAttempts: integer("otp_attempts").notNull(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at"),
    deadlineAt: integer("deadline_at").notNull(),
    resumedAt: integer("resumed_at"),
    /** When the step at `step_started_cursor` first started (kept across re-claims, for durable waits). */
    stepStartedAt: integer("step_started_at"),
    stepStartedCursor: integer("step_started_cursor"),
    /** The non-idempotent step whose request may be on the wire; cleared by the commit that settles it. */
    inFlightStepId: text("in_flight_step_id"),
    /** The session whose browser storage state the run starts from (`session_id` on create). */
    sessionId: text("session_id"),
    eventSeq: integer("event_seq").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("runs_runs_status_idx").on(t.status, t.updatedAt),
    index("runs_runs_wait_idx").on(t.status, t.waitExpiresAt),
    index("runs_runs_deadline_idx").on(t.status, t.deadlineAt),
    index("runs_runs_created_idx").on(t.createdAt, t.id),
    index("runs_runs_template_idx").on(t.templateId, t.createdAt),
  ],
);

/** The append-only event log of every run. */
export const events = sqliteTable(
  "runs_events",
  {
    runId: text("run_id").notNull(),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    at: integer("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/** Stored answers to requests sent with an `Idempotency-Key`. */
export const idempotency = sqliteTable(
  "runs_idempotency",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    runId: text("run_id").notNull(),
    response: text("response", { mode: "json" }).$type<unknown>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);

/** Inbound messages (SMS, e-mail) an OTP source reads codes from. */
export const inboundMessages = sqliteTable(
  "runs_inbound_messages",
  {
    id: text("id").primaryKey(),
    runId: text("run_id"),
    sender: text("sender"),
    body: text("body").notNull(),
    receivedAt: integer("received_at").notNull(),
    consumedAt: integer("consumed_at"),
    /** The messaging provider (`vonage`) and its message id: one row per delivered message. */
    provider: text("provider"),
    providerMessageId: text("provider_message_id"),
    /** The number the message was sent to. */
    recipient: text("recipient"),
  },
  (t) => [
    uniqueIndex("runs_inbound_messages_received_idx").on(t.receivedAt, t.id),
    uniqueIndex("runs_inbound_messages_provider_idx").on(t.provider, t.providerMessageId),
  ],
);

/** Every callback of a messaging provider: accepted, duplicate or rejected (with why); never the text. */
export const inboundCallbacks = sqliteTable(
  "runs_inbound_callbacks",
  {
    id: text("id").primaryKey(),
    provider: text("provider").notNull(),
    outcome: text("outcome", { enum: ["accepted", "duplicate", "rejected"] }).notNull(),
    reason: text("reason"),
    providerMessageId: text("provider_message_id"),
    sender: text("sender"),
    recipient: text("recipient"),
    /** The run the message resumed, if it resumed one. */
    runId: text("run_id"),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("runs_inbound_callbacks_received_idx").on(t.receivedAt, t.id)],
);

/** The embedding of a failed or blocked run's failure text, for similar-failure search. */
export const runEmbeddings = sqliteTable(
  "runs_run_embeddings",
  {
    runId: text("run_id").primaryKey(),
    model: text("model").notNull(),
    dimension: integer("dimension").notNull(),
    /** Float32 little-endian, L2-normalised. */
    vector: blob("vector", { mode: "buffer" }).notNull(),
    /** The reason codes of the failure (end reason, wait reason). */
    reasonCodes: text("reason_codes", { mode: "json" }).$type<string[]>().notNull(),
    failureText: text("failure_text").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("runs_run_embeddings_model_idx").on(t.model),
    /** The runs with a vector, by run id (from the distinct vectors of libSQL's vector index: `failure-vectors.ts`). */
    index("runs_run_embeddings_vector_idx").on(t.vector, t.runId),
  ],
);

/**
 * The browser state a run left at its last gate: the page URL and its storage state (cookies,
 * localStorage), sealed under the secrets key. Resume reopens them — after a restart too.
 */
export const browserStates = sqliteTable("runs_browser_states", {
  runId: text("run_id").primaryKey(),
  url: text("url").notNull(),
  /** The storage state as `v1:` ciphertext (it holds session cookies). */
  storageState: text("storage_state").notNull(),
  savedAt: integer("saved_at").notNull(),
});

/** Evidence of browser steps: timing, selector used, URLs, and the screenshots' files in the data dir. */
export const evidence = sqliteTable(
  "runs_evidence",
  {
    id: text("id").primaryKey(),
    runId: text("run_id").notNull(),
    /** Per-run order. */
    seq: integer("seq").notNull(),
    stepId: text("step_id").notNull(),
    stepType: text("step_type").notNull(),
    outcome: text("outcome").notNull(),
    startedAt: integer("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Screenshot name → file path relative to the data directory. */
    screenshots: text("screenshots", { mode: "json" }).$type<Record<string, string>>().notNull(),
  },
  (t) => [
    uniqueIndex("runs_evidence_run_seq_idx").on(t.runId, t.seq),
    index("runs_evidence_step_idx").on(t.runId, t.stepId),
  ],
);
export { automationOutput, automationTasks } from "./automation-schema.js";
export { cuActions, cuEvidence, cuSessions, sessions } from "./lanes-schema.js";
export { proofCampaigns } from "./proof-schema.js";
export { reconstructionPreviews } from "./reconstruction-schema.js";
export { rumAggregates, rumSamples } from "./telemetry-schema.js";
export { towerDrafts, towerReplays } from "./tower-schema.js";
export { webhookDeliveries, webhookEvents, webhookFeeds, webhooks } from "./webhooks-schema.js";
