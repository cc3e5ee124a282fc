import { z } from "zod";
import { END_REASONS, REASON_CODES, RESUME_KINDS, RUN_STATUSES } from "./status.js";
import { EvidenceRef, RequiredAction } from "./wait-guidance.js";

/** Why and where a paused run waits, and how it may be resumed. */
export const WaitContext = z
  .object({
    reason_code: z.enum(REASON_CODES),
    at_step_id: z.string(),
    resume_from_step_id: z
      .string()
      .nullable()
      .meta({ description: "The step the run continues from; null when the flow ends after the gate" }),
    allowed_resume_kinds: z.array(z.enum(RESUME_KINDS)),
    prompt: z.string(),
    provider_domain: z.string().nullable(),
    gate_required_by_policy: z.boolean(),
    opened_at: z.string(),
    expires_at: z.string(),
    otp_attempts: z.number().int().optional(),
    max_otp_attempts: z.number().int().optional(),
    input_schema: z
      .object({
        pattern: z.string().optional(),
        min_length: z.number().int().optional(),
        max_length: z.number().int().optional(),
      })
      .optional(),
    after_step_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "The step the run paused after; null when the gate step is the first" }),
    resume_hint: z.string().optional().meta({ description: "How to resume, and where the run goes on" }),
    screen_title: z.string().optional().meta({ description: "A title for the screen that shows this wait" }),
    required_actions: z.array(RequiredAction).optional(),
    evidence_refs: z.array(EvidenceRef).optional(),
  })
  .meta({ id: "WaitContext" });
/** Why and where a paused run waits. */
export type WaitContext = z.infer<typeof WaitContext>;

/** A run as the API returns it. Secrets and one-time codes are never part of it. */
export const Run = z
  .object({
    id: z.string(),
    flow_id: z.string(),
    flow_version: z.number().int(),
    template_id: z.string().nullable(),
    status: z.enum(RUN_STATUSES),
    version: z.number().int().meta({ description: "Bumped by every transition; pass as expected_version" }),
    params: z.record(z.string(), z.unknown()),
    vars: z.record(z.string(), z.unknown()),
    current_step_id: z.string().nullable(),
    wait_context: WaitContext.nullable(),
    reason: z.enum(END_REASONS).nullable(),
    error: z.string().nullable(),
    otp_attempts: z.number().int(),
    session_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: "Run" });
/** A run as the API returns it. */
export type Run = z.infer<typeof Run>;

const ExpectedVersion = z
  .number()
  .int()
  .min(1)
  .optional()
  .meta({ description: "Refuse (409) unless the run is still at this version" });

/** The longest comment an approval may carry. */
export const MAX_GATE_COMMENT = 2000;

/** The body of `POST /api/runs/{run_id}/resume`, discriminated by `kind`. */
export const ResumeRequest = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("otp"),
      otp_code: z.string().trim().min(1).max(64),
      expected_version: ExpectedVersion,
    }),
    z.object({
      kind: z.literal("approval"),
      approved: z.boolean(),
      comment: z.string().trim().max(MAX_GATE_COMMENT).optional().meta({
        description: "Why it was approved or rejected; stored in the gate_resolved event",
      }),
      expected_version: ExpectedVersion,
    }),
    z.object({
      kind: z.literal("input"),
      input_text: z.string().max(10_000),
      expected_version: ExpectedVersion,
    }),
  ])
  .meta({ id: "ResumeRequest" });
/** The body of `POST /api/runs/{run_id}/resume`. */
export type ResumeRequest = z.infer<typeof ResumeRequest>;

/** The v2 OTP body of `POST /api/runs/{run_id}/otp`: without `otp_code` the run's OTP source supplies it. */
export const RunOtpSubmitRequest = z
  .object({ otp_code: z.string().trim().min(1).max(64).optional(), expected_version: ExpectedVersion })
  .meta({ id: "RunOtpSubmitRequest" });
/** The body of `POST /api/runs/{run_id}/otp`. */
export type RunOtpSubmitRequest = z.infer<typeof RunOtpSubmitRequest>;

/**
 * What `cancelRun` takes besides the run: an optional `expected_version` (the query of
 * `POST /api/runs/{run_id}/cancel`, where it arrives as text and is coerced).
 */
export const CancelRunRequest = z.object({
  expected_version: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .meta({ description: "Refuse (409 VERSION_CONFLICT) unless the run is still at this version" }),
});
/** What `cancelRun` takes besides the run. */
export type CancelRunRequest = z.input<typeof CancelRunRequest>;

/** The body of `POST /api/runs`: a template or a flow, and param values. */
export const CreateRunInput = z
  .object({
    template_id: z.string().min(1).optional(),
    flow_id: z.string().min(1).optional(),
    params: z.record(z.string(), z.unknown()).default({}),
    session_id: z.string().min(1).max(200).optional().meta({
      description:
        "A finished session whose browser storage state (cookies, localStorage) the run starts with",
    }),
    start_at_step_id: z.string().min(1).max(200).optional().meta({
      description:
        "Replay from this step of the flow: earlier steps are not executed (listed in the run_created event)",
    }),
    stop_after_step_id: z.string().min(1).max(200).optional().meta({
      description: "End the run after this step of the flow; with start_at_step_id equal, one step runs",
    }),
  })
  .refine((v) => (v.template_id === undefined) !== (v.flow_id === undefined), {
    message: "give exactly one of template_id and flow_id",
    path: ["template_id"],
  })
  .meta({ id: "CreateRunInput" });
/** The body of `POST /api/runs`. */
export type CreateRunInput = z.input<typeof CreateRunInput>;

/** The kinds of event in a run's log. */
export const EVENT_TYPES = [
  "run_created",
  "status_changed",
  "lease_expired",
  "step_started",
  "step_finished",
  "gate_opened",
  "gate_resolved",
  "gate_expired",
  "error",
  "takeover_started",
  "takeover_input",
  "takeover_blocked",
  "takeover_ended",
] as const;
/** A kind of run event. */
export type EventType = (typeof EVENT_TYPES)[number];

/** One entry of a run's append-only event log. OTP values and secrets never appear in `data`. */
export const RunEvent = z
  .object({
    id: z.number().int().meta({ description: "Per-run sequence, from 1" }),
    run_id: z.string(),
    type: z.enum(EVENT_TYPES),
    data: z.record(z.string(), z.unknown()),
    at: z.string(),
  })
  .meta({ id: "RunEvent" });
/** One entry of a run's event log. */
export type RunEvent = z.infer<typeof RunEvent>;
