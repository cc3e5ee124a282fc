import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { CampaignPolicy, CampaignReport } from "../domain/proof/schemas.js";

/*
 * The tables of proof and review. Re-exported by `schema.ts`, so drizzle-kit and `migrate()` see them.
 */

/** Proof campaigns: a named set of runs judged under a policy, with the report computed at creation. */
export const proofCampaigns = sqliteTable(
  "runs_proof_campaigns",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    policy: text("policy", { enum: ["standard", "strict"] })
      .$type<CampaignPolicy>()
      .notNull(),
    runIds: text("run_ids", { mode: "json" }).$type<string[]>().notNull(),
    status: text("status", { enum: ["passed", "failed"] }).notNull(),
    report: text("report", { mode: "json" }).$type<CampaignReport>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("runs_proof_campaigns_created_idx").on(t.createdAt, t.id)],
);
