import { z } from "zod";

/** The most texts one batch may hold. */
export const EMBEDDINGS_MAX_TEXTS = 128;
/** The longest text (in characters) a batch may hold. */
export const EMBEDDINGS_MAX_CHARS = 8192;
/**
 * Whether `text` holds a control character: C0 but tab, newline and carriage return; DEL; C1.
 */
export function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

const Text = z
  .string()
  .min(1)
  .max(EMBEDDINGS_MAX_CHARS)
  .refine((t) => t.trim() !== "", "a text must not be blank")
  .refine((t) => !hasControlCharacters(t), "a text must not hold control characters");

/** The body of `POST /api/embeddings/batch`. */
export const EmbeddingsBatchRequest = z
  .object({
    texts: z.array(Text).min(1).max(EMBEDDINGS_MAX_TEXTS),
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "Default: the first configured (local)" }),
  })
  .meta({ id: "EmbeddingsBatchRequest" });
/** The body of `POST /api/embeddings/batch`. */
export type EmbeddingsBatchRequest = z.input<typeof EmbeddingsBatchRequest>;

/** The answer of `POST /api/embeddings/batch`: one unit-length vector a text, in order. */
export const EmbeddingsBatchResponse = z
  .object({
    model: z.string(),
    vector_count: z.number().int(),
    dimension: z.number().int(),
    vectors: z.array(z.array(z.number())),
  })
  .meta({ id: "EmbeddingsBatchResponse" });
/** The answer of `POST /api/embeddings/batch`. */
export type EmbeddingsBatchResponse = z.infer<typeof EmbeddingsBatchResponse>;
