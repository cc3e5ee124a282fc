import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { PreferenceFamily } from "../domain/preference-family.js";

/** Every saved preference item, one row per (family, id), holding the current version. */
export const preferences = sqliteTable(
  "fileorg_preferences",
  {
    family: text("family").$type<PreferenceFamily>().notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.family, t.id] }),
    uniqueIndex("fileorg_preferences_name").on(t.family, t.name),
  ],
);

/** Every version ever saved of every preference item (secrets masked), for history and audit. */
export const preferenceVersions = sqliteTable(
  "fileorg_preference_versions",
  {
    family: text("family").$type<PreferenceFamily>().notNull(),
    id: text("id").notNull(),
    version: integer("version").notNull(),
    /** `null` records a deletion. */
    data: text("data", { mode: "json" }).$type<Record<string, unknown> | null>(),
    savedAt: integer("saved_at").notNull(),
    actor: text("actor").notNull(),
  },
  (t) => [primaryKey({ columns: [t.family, t.id, t.version] })],
);

/** A learned signal → outcome pair with its counts, merged across jobs. */
export const learnedRules = sqliteTable(
  "fileorg_learned_rules",
  {
    id: text("id").primaryKey(),
    /** `extension`, `folder`, `token` or `mime`. */
    signalKind: text("signal_kind").notNull(),
    signalValue: text("signal_value").notNull(),
    /** `category` or `target_dir`. */
    outcomeField: text("outcome_field").notNull(),
    outcomeValue: text("outcome_value").notNull(),
    count: integer("count").notNull(),
    jobCount: integer("job_count").notNull(),
    lastJobId: text("last_job_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("fileorg_learned_rules_key").on(t.signalKind, t.signalValue, t.outcomeField, t.outcomeValue),
    index("fileorg_learned_rules_signal").on(t.signalKind, t.signalValue),
  ],
);

/** Files of a watch source already handed to an analyze job, so scan reports only what is new. */
export const inboxSeen = sqliteTable(
  "fileorg_inbox_seen",
  {
    watchSourceId: text("watch_source_id").notNull(),
    path: text("path").notNull(),
    size: integer("size").notNull(),
    mtime: integer("mtime").notNull(),
    batchId: text("batch_id").notNull(),
    jobId: text("job_id"),
    analyzedAt: integer("analyzed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.watchSourceId, t.path] })],
);
