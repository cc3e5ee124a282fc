import { z } from "@hono/zod-openapi";
import { ErrorEnvelope } from "../errors.js";

/** An error answer in the OpenAPI document. */
export function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: ErrorEnvelope } } };
}

/** A JSON answer in the OpenAPI document. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON request body in the OpenAPI document. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return { required: true, content: { "application/json": { schema } } };
}

/** `{ items, next_cursor }` of `item`. */
export function pageOf<S extends z.ZodType>(item: S, id: string) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() }).meta({ id });
}

/**
 * The `cursor` of every list: the opaque `next_cursor` a previous page answered (base64url or decimal
 * characters, at most 512). Anything else is a 400 `CURSOR_INVALID` (see `validationHook`).
 */
export const Cursor = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, "Not a cursor this server made; pass next_cursor of the previous page.")
  .optional()
  .meta({ description: "next_cursor of the previous page" });

/**
 * The `cursor` of lists that page by sequence number: a decimal integer below 2^53 (no sign, exponent or
 * `Infinity`). Anything else is a 400 `CURSOR_INVALID`.
 */
export const SequenceCursor = z
  .string()
  .regex(/^\d{1,15}$/, "Not a cursor this server made; pass next_cursor of the previous page.")
  .optional()
  .meta({ description: "next_cursor of the previous page (a sequence number)" });

/** `?cursor=&limit=` of every list. */
export const PageQuery = z.object({
  cursor: Cursor,
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

/** The optional `Idempotency-Key` header. */
export const IdempotencyHeaders = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: "Retrying with the same key returns the first answer; another body → 422" }),
});
