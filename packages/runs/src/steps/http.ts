import { z } from "zod";
import { StepId, sleep } from "./common.js";
import { DEFAULT_MAX_RESPONSE_BYTES, readCappedResponse } from "./http-response.js";
import { readJsonPath } from "./json-path.js";
import type { StepOutcome, StepType } from "./step-type.js";

/** `http`: one request with global fetch; `expect` checks status and JSON values, `extract` fills vars. */
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

const RETRY_BACKOFF_MS = 200;

async function send(
  step: HttpStep,
  signal: AbortSignal,
  f: typeof fetch,
  idempotencyKey: string,
  maxBytes: number,
) {
  const headers: Record<string, string> = { "Idempotency-Key": idempotencyKey, ...step.headers };
  const hasBody = step.body !== undefined && step.method !== "GET" && step.method !== "HEAD";
  if (hasBody) headers["Content-Type"] ??= "application/json";
  const res = await f(step.url, {
    method: step.method,
    headers,
    ...(hasBody ? { body: JSON.stringify(step.body) } : {}),
    signal: AbortSignal.any([signal, AbortSignal.timeout(step.timeout_ms)]),
    // Never follow redirects: a redirect could lead to a protected provider without the approval gate.
    redirect: "manual",
  });
  return readCappedResponse(res, maxBytes);
}

/** Whether sending `step` twice is harmless: GET and HEAD, or a step that declares `idempotent: true`. */
export function isIdempotentHttpStep(step: HttpStep): boolean {
  return step.method === "GET" || step.method === "HEAD" || step.idempotent === true;
}

function check(step: HttpStep, status: number, json: unknown): StepOutcome {
  const detail = { status };
  const wanted = step.expect?.status;
  if (wanted !== undefined && !wanted.includes(status)) {
    return {
      kind: "failed",
      reason: "step_failed",
      message: `${step.id}: expected status ${wanted.join(" or ")}, got ${status}`,
      // A server error says nothing about what was sent (e.g. a one-time code): not an expectation.
      expectation: status < 500,
      detail,
    };
  }
  for (const [path, expected] of Object.entries(step.expect?.json ?? {})) {
    const hit = readJsonPath(json, path);
    if (!hit.found || JSON.stringify(hit.value) !== JSON.stringify(expected)) {
      return {
        kind: "failed",
        reason: "step_failed",
        message: `${step.id}: response ${path} is not the expected value`,
        expectation: true,
        detail,
      };
    }
  }
  const vars: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(step.extract ?? {})) {
    const hit = readJsonPath(json, path);
    if (!hit.found) {
      return {
        kind: "failed",
        reason: "step_failed",
        message: `${step.id}: response has nothing at ${path} to extract into ${name}`,
        expectation: true,
        detail,
      };
    }
    vars[name] = hit.value;
  }
  return { kind: "completed", vars, detail };
}

/** The `http` step type. Network errors and 5xx answers are retried `retries` times; 4xx never. */
export const httpStep: StepType<HttpStep> = {
  type: "http",
  schema: HttpStep,
  effect: "external",
  targets: (step) => [step.url],
  idempotent: isIdempotentHttpStep,
  async execute(step, ctx) {
    if (!/^https?:\/\//i.test(step.url)) {
      return {
        kind: "failed",
        reason: "step_failed",
        message: `${step.id}: the URL must be absolute http(s)`,
        expectation: false,
      };
    }
    const key = `${ctx.runId}:${step.id}`;
    let last: StepOutcome = {
      kind: "failed",
      reason: "step_failed",
      message: "not sent",
      expectation: false,
    };
    for (let attempt = 0; attempt <= ctx.retries; attempt++) {
      if (attempt > 0) await sleep(RETRY_BACKOFF_MS * attempt, ctx.signal);
      try {
        const res = await send(
          step,
          ctx.signal,
          ctx.fetch,
          key,
          ctx.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        );
        if (!res.ok) {
          // Refused unread: fails the step once, whatever the status and the retry policy.
          return {
            kind: "failed",
            reason: "step_failed",
            message: `${step.id}: ${res.refusal.code}: ${res.refusal.message}`,
            expectation: false,
            detail: { status: res.status, code: res.refusal.code },
          };
        }
        last = check(step, res.status, res.json);
        if (res.status < 500) return last;
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const message = err instanceof Error ? err.message : String(err);
        last = {
          kind: "failed",
          reason: "step_failed",
          message: `${step.id}: ${message}`,
          expectation: false,
        };
      }
    }
    return last;
  },
};
