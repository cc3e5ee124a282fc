import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { PreviewBody } from "../domain/reconstruction/preview.js";

/*
 * Reconstruction previews: what `POST /api/reconstruction/preview` answered, kept for 24 h so that
 * `generate` can turn it into a flow and template. Re-exported by `schema.ts`.
 */

/** A stored preview: its body (profile, plan, confidences, generated scripts) and when it expires. */
export const reconstructionPreviews = sqliteTable(
  "runs_reconstruction_previews",
  {
    id: text("id").primaryKey(),
    strategy: text("strategy").notNull(),
    /** What it was built from (`session:<id>`, `har`, `html`, joined with `+`). */
    source: text("source").notNull(),
    body: text("body", { mode: "json" }).$type<PreviewBody>().notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("runs_reconstruction_previews_expires_idx").on(t.expiresAt)],
);
