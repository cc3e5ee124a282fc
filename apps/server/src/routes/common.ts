import { z } from "@hono/zod-openapi";
import { MAX_PAGE_LIMIT } from "@vetted/store";
import type { Context } from "hono";
import type { AppEnv } from "../deps.js";
import { ErrorEnvelope } from "../errors.js";

/**
 * The route helpers every route file shares: OpenAPI entries for JSON answers, error envelopes, request
 * bodies and event streams; the one list contract (`?cursor=&limit=` → `{ items, next_cursor }`); path ids.
 */

/** An error answer in the OpenAPI document. */
export function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: ErrorEnvelope } } };
}

/** The statuses a route may answer with the error envelope. */
export type ErrorStatus = 400 | 403 | 404 | 409 | 412 | 415 | 422 | 503;

/** `{ 400: envelope, 404: envelope, ... }`: the error entries of a route's `responses`. */
export function errorResponses<const S extends ErrorStatus>(...statuses: S[]) {
  const entry = errorResponse("Error envelope");
  return Object.fromEntries(statuses.map((status) => [status, entry])) as Record<S, typeof entry>;
}

/** A JSON answer in the OpenAPI document. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON request body in the OpenAPI document. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return { required: true, content: { "application/json": { schema } } };
}

/** `request: { ...bodyOf(schema) }`: the request part naming a required JSON body. */
export function bodyOf<S extends z.ZodType>(schema: S) {
  return { body: jsonBody(schema) };
}

/** The `responses` of a server-sent event stream (404 when what it follows does not exist). */
export function sseResponses(description: string) {
  return {
    200: { description, content: { "text/event-stream": { schema: z.string() } } },
    ...errorResponses(404),
  };
}

/** `{ items, next_cursor }` of `item`. */
export function pageOf<S extends z.ZodType>(item: S, id: string) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() }).meta({ id });
}

/** A path parameter holding an id. */
export function idParam(name: string, description?: string) {
  return z
    .string()
    .min(1)
    .meta({ param: { name, in: "path" }, ...(description === undefined ? {} : { description }) });
}

/** `{job_id}` of every job route. */
export const JobIdParams = z.object({ job_id: idParam("job_id") });
/** `{job_id}` and `{row_id}` of a manifest row route. */
export const RowIdParams = JobIdParams.extend({ row_id: idParam("row_id") });

const NOT_OURS = "Not a cursor this server made; pass next_cursor of the previous page.";

/**
 * The `cursor` of every list: the opaque `next_cursor` a previous page answered (base64url
 * characters, at most 512). Anything else is a 400 `CURSOR_INVALID` (see `validationHook`).
 */
export const Cursor = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, NOT_OURS)
  .optional()
  .meta({ description: "next_cursor of the previous page" });

/**
 * The `limit` of every list: a whole number from 1 to `MAX_PAGE_LIMIT` (500). Absent, the list's default
 * page size applies (`DEFAULT_PAGE_LIMIT`, 50, unless the list documents another).
 */
export const PageLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT)
  .optional()
  .meta({ description: `Items per page, 1 to ${MAX_PAGE_LIMIT}` });

/** `?cursor=&limit=` of every list. */
export const PageQuery = z.object({ cursor: Cursor, limit: PageLimit });

/** The optional `Idempotency-Key` header. */
export const IdempotencyHeaders = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: "Retrying with the same key returns the first answer; another body → 422" }),
});

/** Who asked and under which request id, as the engines record it. */
export function actorOf(c: Context<AppEnv>) {
  return { actor: c.get("actor"), requestId: c.get("requestId") };
}

/** A plain-text answer in the OpenAPI document. */
export function textResponse(description: string) {
  return { description, content: { "text/plain": { schema: z.string() } } };
}
