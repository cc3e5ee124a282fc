import { HttpStep } from "../../domain/steps.js";
import { sleep } from "./common.js";
import { DEFAULT_MAX_RESPONSE_BYTES, readCappedResponse } from "./http-response.js";
import { readJsonPath } from "./json-path.js";
import type { StepOutcome, StepType } from "./step-type.js";

export { HttpStep };

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
    // One key per attempt at the step: the same across its retries and crash-retries (the far side may
    // deduplicate them), a new one after a wrong one-time code (a new request with another body).
    const key = `${ctx.runId}:${step.id}:${ctx.attempt}`;
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
