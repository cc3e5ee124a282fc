import fc from "fast-check";
import { listOperations, type OpenApiDocument } from "./openapi-operations.js";
import { anyRequest, type FuzzRequest } from "./requests.js";
import type { ValueContext } from "./schema-values.js";

/** One request that broke a promise: a 5xx, an error without the envelope, no answer, or a hang. */
export interface FuzzFailure {
  seed: number;
  /** The request's index in the sample of `seed`; `--seed S --only I` sends it again. */
  index: number;
  request: FuzzRequest;
  status: number | "no-answer" | "timeout";
  /** The start of the answer's body (or the client error). */
  answer: string;
}

/** What a fuzz run did. */
export interface FuzzReport {
  seed: number;
  count: number;
  /** Answers per status (`no-answer` and `timeout` included). */
  tallies: Record<string, number>;
  failures: FuzzFailure[];
}

/** Options of {@link runFuzz}. */
export interface FuzzOptions {
  baseUrl: string;
  doc: OpenApiDocument;
  context: Omit<ValueContext, "doc">;
  count: number;
  seed: number;
  /** Send only these indexes of the sample (to reproduce a failure). */
  only?: readonly number[];
  concurrency?: number;
  timeoutMs?: number;
}

function isEnvelope(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || !("error" in parsed)) return false;
    const error: unknown = parsed.error;
    return (
      typeof error === "object" &&
      error !== null &&
      "code" in error &&
      typeof error.code === "string" &&
      /^[A-Z][A-Z0-9_]*$/.test(error.code) &&
      "message" in error &&
      typeof error.message === "string" &&
      "request_id" in error &&
      typeof error.request_id === "string"
    );
  } catch {
    return false;
  }
}

async function send(
  baseUrl: string,
  request: FuzzRequest,
  timeoutMs: number,
): Promise<{ status: number | "no-answer" | "timeout"; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(`${baseUrl}${request.target}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: "manual",
      signal: controller.signal,
    });
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      await res.body?.cancel();
      return { status: res.status, text: "" };
    }
    return { status: res.status, text: await res.text() };
  } catch (err) {
    if (controller.signal.aborted) return { status: "timeout", text: `no answer within ${timeoutMs} ms` };
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { status: "no-answer", text: `${err instanceof Error ? err.message : String(err)}${cause}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends once more (the pool opens a new connection) when the first try lost its pooled keep-alive connection before any
 * answer (the server closing an idle socket just as the client reused it). A server that really drops a
 * request fails the second try the same way and is judged for it.
 */
async function sendWithRetry(
  baseUrl: string,
  request: FuzzRequest,
  timeoutMs: number,
): ReturnType<typeof send> {
  const first = await send(baseUrl, request, timeoutMs);
  if (first.status !== "no-answer" || !/other side closed|ECONNRESET|EPIPE/.test(first.text)) return first;
  return send(baseUrl, request, timeoutMs);
}

/** Whether an answer keeps the server's promises: no 5xx, every error in the envelope, always an answer. */
export function judge(status: number | "no-answer" | "timeout", text: string): boolean {
  if (typeof status !== "number") return false;
  if (status >= 500) return false;
  return status < 400 || isEnvelope(text);
}

/**
 * Generates `count` requests from the live OpenAPI document with fast-check (deterministic for `seed`),
 * sends them with bounded concurrency and reports per-status tallies and every failure.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const ops = listOperations(options.doc);
  const arbitrary = anyRequest(ops, { ...options.context, doc: options.doc });
  const requests = fc.sample(arbitrary, { seed: options.seed, numRuns: options.count });
  const indexes = options.only ?? requests.map((_, i) => i);
  const tallies: Record<string, number> = {};
  const failures: FuzzFailure[] = [];
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < indexes.length; at = next++) {
      const index = indexes[at] ?? 0;
      const request = requests[index];
      if (request === undefined) continue;
      const { status, text } = await sendWithRetry(options.baseUrl, request, options.timeoutMs ?? 15_000);
      tallies[String(status)] = (tallies[String(status)] ?? 0) + 1;
      if (!judge(status, text)) {
        failures.push({ seed: options.seed, index, request, status, answer: text.slice(0, 500) });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  failures.sort((a, b) => a.index - b.index);
  return { seed: options.seed, count: indexes.length, tallies, failures };
}

/** A failure as a few lines a person can paste into a bug report. */
export function describeFailure(failure: FuzzFailure): string {
  const body = failure.request.body === undefined ? "" : failure.request.body.slice(0, 300);
  return [
    `#${failure.index} (seed ${failure.seed}) ${failure.request.method} ${failure.request.target.slice(0, 300)} → ${failure.status}`,
    `  operation: ${failure.request.operation}`,
    `  headers: ${JSON.stringify(failure.request.headers)}`,
    ...(body === "" ? [] : [`  body (${failure.request.body?.length ?? 0} chars): ${body}`]),
    `  answer: ${failure.answer.slice(0, 300)}`,
  ].join("\n");
}
