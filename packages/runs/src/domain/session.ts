import { z } from "zod";
import { RecordedEvent, SelectorCandidate } from "./recording.js";

/*
 * Recording sessions as the API shows them: a live browser context opened at `start_url`, recording what
 * a person does, finished into saved storage state, indexed artifacts and a flow draft. Pure schemas.
 */

/** Session states: `active` (a live context), `finished` (saved), `failed` (the context was lost). */
export const SESSION_STATUSES = ["active", "finished", "failed"] as const;
/** A session state. */
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Who drives a session: a person (`manual`) or the computer-use lane (`ai`). */
export const SESSION_MODES = ["manual", "ai"] as const;

/** True for an absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The body of `POST /api/sessions/start`. */
export const SessionStartInput = z
  .object({
    start_url: z
      .string()
      .min(1)
      .max(8000)
      .refine(
        isHttpUrl,
        "start_url must be an absolute http(s) URL (file:, data:, javascript: and others are refused)",
      )
      .meta({ description: "Absolute http(s) URL the session opens", example: "https://shop.example/login" }),
    mode: z.enum(SESSION_MODES).default("manual"),
    storage_state_from: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "A session whose cookies and localStorage this one starts with" }),
  })
  .meta({ id: "SessionStartInput" });
/** The body of `POST /api/sessions/start`. */
export type SessionStartInput = z.input<typeof SessionStartInput>;

/** Kinds of artifact a session indexes. */
export const ARTIFACT_KINDS = ["screenshot", "har", "events", "storage_state"] as const;

/** One file a finished session saved under the data directory. */
export const SessionArtifact = z
  .object({
    kind: z.enum(ARTIFACT_KINDS),
    name: z.string(),
    bytes: z.number().int(),
    sha256: z.string(),
    content_type: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "SessionArtifact" });
/** One file a finished session saved. */
export type SessionArtifact = z.infer<typeof SessionArtifact>;
/** An artifact as stored: with its path relative to the data directory (never shown). */
export type StoredArtifact = SessionArtifact & { path: string };

/** A session. */
export const Session = z
  .object({
    id: z.string(),
    status: z.enum(SESSION_STATUSES),
    mode: z.enum(SESSION_MODES),
    start_url: z.string(),
    current_url: z.string().nullable(),
    storage_state_from: z.string().nullable(),
    event_count: z.number().int(),
    artifacts_index: z.array(SessionArtifact),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: "Session" });
/** A session. */
export type Session = z.infer<typeof Session>;

const DraftTargetSchema = z.object({ selectors: z.array(SelectorCandidate) });

/** A step of a flow draft. */
export const DraftStepSchema = z.discriminatedUnion("type", [
  z.object({ id: z.string(), type: z.literal("navigate"), url: z.string() }),
  z.object({ id: z.string(), type: z.literal("click"), target: DraftTargetSchema }),
  z.object({ id: z.string(), type: z.literal("type"), target: DraftTargetSchema, value: z.string() }),
  z.object({ id: z.string(), type: z.literal("select"), target: DraftTargetSchema, option: z.string() }),
]);

/** `GET /api/sessions/{session_id}/flow-draft`. */
export const FlowDraft = z
  .object({
    session_id: z.string(),
    name: z.string(),
    start_url: z.string(),
    steps: z.array(DraftStepSchema),
    secrets: z.array(z.string()).meta({ description: "Pass these as secret params when running the flow" }),
    event_count: z.number().int(),
    final: z.boolean().meta({ description: "True once the session is finished (the draft no longer grows)" }),
  })
  .meta({ id: "FlowDraft" });
/** A flow draft. */
export type FlowDraft = z.infer<typeof FlowDraft>;

/** The body of `POST /api/flows` that promotes a session's draft to a flow. */
export const FlowFromSessionInput = z
  .object({
    session_id: z.string().min(1).max(100),
    name: z.string().min(1).max(200).optional(),
  })
  .strict()
  .meta({ id: "FlowFromSessionInput" });
/** The body that promotes a session's draft. */
export type FlowFromSessionInput = z.infer<typeof FlowFromSessionInput>;

/** The recorded events of a session, as stored. */
export const RecordedEvents = z.array(RecordedEvent);
