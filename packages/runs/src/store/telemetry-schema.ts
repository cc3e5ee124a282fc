import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { RumMetric } from "../domain/telemetry.js";

/*
 * The tables of browser telemetry (web vitals sent by the web console). Re-exported by `schema.ts`, so
 * drizzle-kit and `migrate()` see them with the others.
 */

/** One row per metric and page path: the running count, sum and latest value, and the p75 of recent samples. */
export const rumAggregates = sqliteTable(
  "runs_rum_aggregates",
  {
    metric: text("metric").$type<RumMetric>().notNull(),
    path: text("path").notNull(),
    count: integer("count").notNull(),
    sum: real("sum").notNull(),
    /** The 75th percentile (nearest rank) of the samples kept in `runs_rum_samples`. */
    p75: real("p75").notNull(),
    latest: real("latest").notNull(),
    /** When the latest sample was taken (its `timestamp_ms`, else when it arrived). */
    latestAt: integer("latest_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.metric, t.path] })],
);

/** The most recent samples of each metric and path (a bounded window the p75 is computed over). */
export const rumSamples = sqliteTable(
  "runs_rum_samples",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    metric: text("metric").$type<RumMetric>().notNull(),
    path: text("path").notNull(),
    value: real("value").notNull(),
    rating: text("rating"),
    navigationType: text("navigation_type"),
    takenAt: integer("taken_at").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("runs_rum_samples_key_idx").on(t.metric, t.path, t.id)],
);
