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

/** `?cursor=&limit=` of every list. */
export const PageQuery = z.object({
  cursor: z.string().min(1).optional(),
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
