import { describe, expect, it } from "vitest";
import {
  CommandNotFoundError,
  CommandsFileError,
  QueueFullError,
  TaskFinishedError,
  TaskNotFoundError,
} from "../lanes/automation/automation-errors.js";
import { EmbeddingsBusyError, UpstreamTimeoutError } from "../lanes/embeddings/errors.js";
import {
  PathOutsideRootError,
  PreviewUnavailableError,
} from "../lanes/reconstruction/reconstruction-errors.js";
import { DraftStepNotFoundError } from "../lanes/tower/tower-errors.js";
import { WebhookNotFoundError, WebhookUrlDeniedError } from "../lanes/webhooks/webhook-errors.js";
import {
  BrowserBusyError,
  BrowserCrashedError,
  BrowserUnavailableError,
  CampaignNotFoundError,
  FlowNotFoundError,
  IdempotencyKeyReusedError,
  IllegalTransitionError,
  InvalidInputError,
  OtpUnavailableError,
  ResumeRefusedError,
  RUNS_ERROR_CODES,
  RunNotFoundError,
  RunNotPromotableError,
  RunNotRecoverableError,
  RunStateError,
  RunsError,
  SessionNotFoundError,
  StepNotFoundError,
  TemplateNotFoundError,
  TemplateStatusError,
  VersionConflictError,
} from "./errors.js";
import { ActionRefusedError, PlannerError, SessionNotActiveError, SessionStartError } from "./lane-errors.js";

/** One of each error class, built as the engines build it, with the name, code and message callers see. */
const CASES: Array<[RunsError, string, string, string]> = [
  [new RunsError("REQUEST_INVALID", "bad"), "RunsError", "REQUEST_INVALID", "bad"],
  [new FlowNotFoundError("flow_1"), "FlowNotFoundError", "FLOW_NOT_FOUND", "No flow flow_1."],
  [new FlowNotFoundError("flow_1", 2), "FlowNotFoundError", "FLOW_NOT_FOUND", "No flow flow_1 at version 2."],
  [new TemplateNotFoundError("tpl_1"), "TemplateNotFoundError", "TEMPLATE_NOT_FOUND", "No template tpl_1."],
  [new RunNotFoundError("run_1"), "RunNotFoundError", "RUN_NOT_FOUND", "No run run_1."],
  [
    new CampaignNotFoundError("cmp_1"),
    "CampaignNotFoundError",
    "CAMPAIGN_NOT_FOUND",
    "No proof campaign cmp_1.",
  ],
  [new InvalidInputError("PARAMS_INVALID", "p"), "InvalidInputError", "PARAMS_INVALID", "p"],
  [new VersionConflictError("v"), "VersionConflictError", "VERSION_CONFLICT", "v"],
  [new RunStateError("RUN_FINISHED", "f"), "RunStateError", "RUN_FINISHED", "f"],
  [new ResumeRefusedError("INPUT_INVALID", "i"), "ResumeRefusedError", "INPUT_INVALID", "i"],
  [
    new IdempotencyKeyReusedError(),
    "IdempotencyKeyReusedError",
    "IDEMPOTENCY_KEY_REUSED",
    "This Idempotency-Key was already used with a different request body; use a new key.",
  ],
  [new OtpUnavailableError("o"), "OtpUnavailableError", "OTP_UNAVAILABLE", "o"],
  [
    new IllegalTransitionError("success", "queued"),
    "IllegalTransitionError",
    "ILLEGAL_TRANSITION",
    "A run cannot move from success to queued.",
  ],
  [
    new BrowserCrashedError(),
    "BrowserCrashedError",
    "BROWSER_CRASHED",
    "The browser crashed; it is being restarted. Retry the operation.",
  ],
  [
    new SessionNotFoundError("ses_1", "with no state"),
    "SessionNotFoundError",
    "SESSION_NOT_FOUND",
    "No session ses_1 with no state.",
  ],
  [new StepNotFoundError("run_1", "s"), "StepNotFoundError", "STEP_NOT_FOUND", "Run run_1 has no step s."],
  [new TemplateStatusError("t"), "TemplateStatusError", "TEMPLATE_STATUS_CONFLICT", "t"],
  [new RunNotPromotableError("p"), "RunNotPromotableError", "RUN_NOT_PROMOTABLE", "p"],
  [new RunNotRecoverableError("r"), "RunNotRecoverableError", "RUN_NOT_RECOVERABLE", "r"],
  [new SessionNotActiveError("ses_1", "finished", "done"), "SessionNotActiveError", "SESSION_NOT_ACTIVE", ""],
  [new SessionStartError("START_URL_DENIED", "d"), "SessionStartError", "START_URL_DENIED", "d"],
  [new ActionRefusedError("PREVIEW_STALE", "s"), "ActionRefusedError", "PREVIEW_STALE", "s"],
  [new PlannerError("PLANNER_FAILED", "f"), "PlannerError", "PLANNER_FAILED", "f"],
  [new CommandNotFoundError("c", []), "CommandNotFoundError", "COMMAND_NOT_FOUND", ""],
  [new TaskNotFoundError("t"), "TaskNotFoundError", "TASK_NOT_FOUND", ""],
  [new TaskFinishedError("t", "succeeded"), "TaskFinishedError", "TASK_FINISHED", ""],
  [new QueueFullError(1, 1), "QueueFullError", "QUEUE_FULL", ""],
  [new CommandsFileError("m"), "CommandsFileError", "COMMANDS_FILE_INVALID", "m"],
  [new EmbeddingsBusyError(1, 1), "EmbeddingsBusyError", "EMBEDDINGS_BUSY", ""],
  [new UpstreamTimeoutError("m", 1), "UpstreamTimeoutError", "UPSTREAM_TIMEOUT", ""],
  [new PathOutsideRootError("/x", "why"), "PathOutsideRootError", "PATH_OUTSIDE_ROOT", ""],
  [new PreviewUnavailableError("PREVIEW_EXPIRED", "p"), "PreviewUnavailableError", "PREVIEW_EXPIRED", ""],
  [new DraftStepNotFoundError("s", "m"), "DraftStepNotFoundError", "STEP_NOT_FOUND", ""],
  [new WebhookNotFoundError("WEBHOOK_NOT_FOUND", "w"), "WebhookNotFoundError", "WEBHOOK_NOT_FOUND", ""],
  [new WebhookUrlDeniedError("http://x", "r"), "WebhookUrlDeniedError", "WEBHOOK_URL_DENIED", ""],
];

describe("the errors of @vetted/runs", () => {
  it.each(CASES)("%s is an Error and a RunsError named %s with code %s", (err, name, code, message) => {
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(RunsError);
    expect(err.name).toBe(name);
    expect(err.constructor.name).toBe(name);
    expect(err.code).toBe(code);
    expect(RUNS_ERROR_CODES).toContain(err.code);
    if (message !== "") expect(err.message).toBe(message);
    expect(String(err)).toBe(`${name}: ${err.message}`);
  });

  it("keeps the details and extra fields callers read", () => {
    expect(new VersionConflictError("v", { at: 2 }).details).toEqual({ at: 2 });
    expect(new InvalidInputError("REQUEST_INVALID", "r", [1]).details).toEqual([1]);
    expect(new IllegalTransitionError("a", "b").details).toEqual({ from: "a", to: "b" });
    expect(new BrowserCrashedError().retryable).toBe(true);
    const busy = new BrowserBusyError(4, 5000, 2);
    expect(busy).toMatchObject({ code: "BROWSER_BUSY", retryAfterS: 5, name: "BrowserBusyError" });
    expect(busy.details).toEqual({ max_contexts: 4, waited_ms: 5000, queued: 2, retry_after_s: 5 });
    const missing = new BrowserUnavailableError("not installed", "playwright-core");
    expect(missing.details).toEqual({ reason: "not installed", install: "npm install playwright-core" });
    expect(new BrowserUnavailableError("none").message).toContain("apt-get install -y chromium");
  });

  it("tells the classes apart by instanceof", () => {
    expect(new RunNotFoundError("r")).not.toBeInstanceOf(TemplateNotFoundError);
    expect(new TemplateStatusError("t")).not.toBeInstanceOf(RunNotPromotableError);
    expect(new RunStateError("RUN_NOT_WAITING", "w")).not.toBeInstanceOf(ResumeRefusedError);
  });
});
