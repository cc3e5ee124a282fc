import { z } from "zod";
import {
  BROWSER_ASSERT_FIELDS,
  ClickStep,
  ExtractStep,
  isBrowserAssert,
  NavigateStep,
  ScreenshotStep,
  SelectStep,
  Target,
  TypeStep,
  WaitForStep,
} from "./browser-steps.js";
import type { ResumeKind } from "./status.js";

/*
 * The step schemas: what a flow's steps look like, as data. Their executors (requests, timers, gates) live
 * in `../core/steps/`, one module per step type; this module does no I/O and schedules nothing.
 */

/** A step id: stable, unique in its flow. */
export const StepId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "a step id is 1-64 letters, digits, _ or -")
  .meta({ description: "Stable step id, unique in the flow" });

/** A gate's prompt. */
export const Prompt = z.string().min(1).max(1000);

/** A gate's own timeout, overriding the template's. */
export const GateTimeout = z
  .number()
  .int()
  .min(1)
  .max(30 * 86_400)
  .optional();

/** `http`: one HTTP request; `expect` checks status and JSON values, `extract` fills vars. */
export const HttpStep = z
  .object({
    id: StepId,
    type: z.literal("http"),
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]).default("GET"),
    url: z.string().min(1).meta({ description: "Absolute http(s) URL; may hold ${…} references" }),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional().meta({ description: "Sent as JSON" }),
    expect: z
      .object({
        status: z.array(z.number().int().min(100).max(599)).min(1).optional(),
        json: z
          .record(z.string(), z.unknown())
          .optional()
          .meta({ description: "JSONPath (`$.a.b`) → expected value" }),
      })
      .optional(),
    extract: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().startsWith("$"))
      .optional()
      .meta({ description: "Variable name → JSONPath into the JSON response" }),
    timeout_ms: z.number().int().min(1).max(600_000).default(30_000),
    idempotent: z
      .boolean()
      .optional()
      .meta({
        description:
          "Safe to send twice (GET and HEAD always are). A run re-claimed while a non-idempotent request " +
          "was in flight pauses (step_outcome_unknown) instead of sending it again.",
      }),
  })
  .meta({ id: "HttpStep" });
/** An `http` step. */
export type HttpStep = z.infer<typeof HttpStep>;

/** `set`: assigns variables (values may reference params, vars, gate values). */
export const SetStep = z
  .object({
    id: StepId,
    type: z.literal("set"),
    vars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.unknown()),
  })
  .meta({ id: "SetStep" });
/** A `set` step. */
export type SetStep = z.infer<typeof SetStep>;

/**
 * `wait`: pauses the run (still `running`) for `seconds`, counted from when the step first started, so a
 * run re-claimed after its worker died only waits for what is left.
 */
export const WaitStep = z
  .object({
    id: StepId,
    type: z.literal("wait"),
    seconds: z.number().min(0).max(3600),
  })
  .meta({ id: "WaitStep" });
/** A `wait` step. */
export type WaitStep = z.infer<typeof WaitStep>;

/**
 * `assert`, in one of two forms. The value form fails the run unless `value` equals `equals` and/or
 * matches `matches` (RE2 syntax, matched in linear time; a pattern that needs backtracking is refused when
 * the flow is saved). The browser form (any of `target`, `text`, `url`, `visible`) checks the run's page,
 * waiting up to `timeout_ms` for it to hold: `text` — the target's text (or the page's) contains it;
 * `url` — the page URL contains it; `visible` — the target is (or is not) visible; a `target` alone must
 * exist. The two forms do not mix.
 */
export const AssertStep = z
  .object({
    id: StepId,
    type: z.literal("assert"),
    value: z.unknown().optional(),
    equals: z.unknown().optional(),
    matches: z.string().optional(),
    message: z.string().max(500).optional(),
    target: Target.optional(),
    text: z.string().min(1).max(10_000).optional(),
    url: z.string().min(1).max(10_000).optional(),
    visible: z.boolean().optional(),
    timeout_ms: z.number().int().min(1).max(120_000).optional(),
  })
  .superRefine((step, ctx) => {
    if (!isBrowserAssert(step)) {
      if (!Object.hasOwn(step, "value")) {
        ctx.addIssue({
          code: "custom",
          path: ["value"],
          message: `an assert checks a value (value, equals, matches) or the page (${BROWSER_ASSERT_FIELDS.join(", ")})`,
        });
      }
      return;
    }
    const valueForm = ["value", "equals", "matches"].filter((k) => Object.hasOwn(step, k));
    if (valueForm.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: [valueForm[0] ?? "value"],
        message: `an assert checks either a value (value, equals, matches) or the page (${BROWSER_ASSERT_FIELDS.join(", ")}), not both`,
      });
    }
    if (step.visible !== undefined && step.target === undefined) {
      ctx.addIssue({ code: "custom", path: ["visible"], message: "visible needs a target" });
    }
  })
  .meta({ id: "AssertStep" });
/** An `assert` step. */
export type AssertStep = z.infer<typeof AssertStep>;

/** `otp_gate`: pauses as `waiting_otp` until a one-time code arrives (`${gate.otp_code}`). */
export const OtpGateStep = z
  .object({
    id: StepId,
    type: z.literal("otp_gate"),
    prompt: Prompt.default("Enter the one-time code"),
    timeout_seconds: GateTimeout,
  })
  .meta({ id: "OtpGateStep" });
/** An `otp_gate` step. */
export type OtpGateStep = z.infer<typeof OtpGateStep>;

/** `approval_gate`: pauses as `waiting_user` until a person approves (or rejects: the run is cancelled). */
export const ApprovalGateStep = z
  .object({
    id: StepId,
    type: z.literal("approval_gate"),
    prompt: Prompt.default("Approve to continue"),
    timeout_seconds: GateTimeout,
  })
  .meta({ id: "ApprovalGateStep" });
/** An `approval_gate` step. */
export type ApprovalGateStep = z.infer<typeof ApprovalGateStep>;

/** `input_gate`: pauses as `waiting_user` until a person types text (`${gate.input_text}`). */
export const InputGateStep = z
  .object({
    id: StepId,
    type: z.literal("input_gate"),
    prompt: Prompt,
    input_schema: z
      .object({
        pattern: z.string().min(1).optional(),
        min_length: z.number().int().min(0).optional(),
        max_length: z.number().int().min(1).max(10_000).optional(),
      })
      .optional(),
    timeout_seconds: GateTimeout,
  })
  .meta({ id: "InputGateStep" });
/** An `input_gate` step. */
export type InputGateStep = z.infer<typeof InputGateStep>;

/** Any step of a flow, discriminated by `type`. */
export const Step = z
  .discriminatedUnion("type", [
    HttpStep,
    SetStep,
    WaitStep,
    AssertStep,
    OtpGateStep,
    ApprovalGateStep,
    InputGateStep,
    NavigateStep,
    ClickStep,
    TypeStep,
    SelectStep,
    WaitForStep,
    ExtractStep,
    ScreenshotStep,
  ])
  .meta({ id: "Step" });
/** Any step of a flow. */
export type Step = z.infer<typeof Step>;

/** What a gate step asks a person for. */
export interface GateRequest {
  kind: ResumeKind;
  prompt: string;
  /** For input gates: the constraints the typed text must meet. */
  input_schema?: InputSchema | undefined;
  /** Overrides the template's gate (or OTP) timeout. */
  timeout_seconds?: number | undefined;
}

/** Constraints on the text an input gate accepts. */
export interface InputSchema {
  pattern?: string | undefined;
  min_length?: number | undefined;
  max_length?: number | undefined;
}

/** What a step's execution came to. */
export type StepOutcome =
  | {
      kind: "completed";
      vars?: Record<string, unknown>;
      detail?: Record<string, unknown>;
      /** A 3-D Secure challenge appeared: the run pauses after this step for a person. */
      threeDs?: { signal: string; url: string } | undefined;
    }
  | {
      /** The step would act on (or navigate to) a protected payment provider: pause before acting. */
      kind: "protected";
      provider_domain: string;
      detail?: Record<string, unknown>;
    }
  | {
      kind: "failed";
      reason: "step_failed" | "assertion_failed";
      message: string;
      /** True when the step ran but its expectation (status, body) did not hold. */
      expectation: boolean;
      detail?: Record<string, unknown>;
    }
  | { kind: "gate"; gate: GateRequest };
