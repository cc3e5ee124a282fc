import type { Tx } from "@vetted/store";
import { runTransaction } from "@vetted/store";
import { and, asc, count, desc, eq, lte, sum } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import {
  MAX_RUM_PATHS,
  normalizeRumPath,
  percentile,
  RUM_OTHER_PATH,
  RUM_SAMPLE_WINDOW,
  type RumAccepted,
  type RumAggregate,
  type RumMetric,
  type RumSample,
} from "../../domain/telemetry.js";
import { rumAggregates, rumSamples } from "../../store/schema.js";

/**
 * The path a new sample is stored under: its own, or `(other)` once the metric has {@link MAX_RUM_PATHS}
 * (counting paths stored before and those new in this batch).
 */
async function storedPath(
  tx: Tx,
  metric: RumMetric,
  path: string,
  batch: ReadonlyMap<string, { metric: RumMetric; path: string }>,
): Promise<string> {
  if (batch.has(`${metric} ${path}`)) return path;
  const [known] = await tx
    .select({ path: rumAggregates.path })
    .from(rumAggregates)
    .where(and(eq(rumAggregates.metric, metric), eq(rumAggregates.path, path)));
  if (known !== undefined) return path;
  const [paths] = await tx.select({ n: count() }).from(rumAggregates).where(eq(rumAggregates.metric, metric));
  const fresh = [...batch.values()].filter((g) => g.metric === metric && g.path !== RUM_OTHER_PATH).length;
  return (paths?.n ?? 0) + fresh >= MAX_RUM_PATHS ? RUM_OTHER_PATH : path;
}

/** Drops the samples of a key beyond the newest {@link RUM_SAMPLE_WINDOW} and returns the values kept. */
async function keepWindow(tx: Tx, metric: RumMetric, path: string): Promise<number[]> {
  const key = and(eq(rumSamples.metric, metric), eq(rumSamples.path, path));
  const kept = await tx
    .select({ id: rumSamples.id, value: rumSamples.value })
    .from(rumSamples)
    .where(key)
    .orderBy(desc(rumSamples.id))
    .limit(RUM_SAMPLE_WINDOW + 1);
  const oldestKept = kept[RUM_SAMPLE_WINDOW - 1];
  if (kept.length > RUM_SAMPLE_WINDOW && oldestKept !== undefined) {
    await tx.delete(rumSamples).where(and(key, lte(rumSamples.id, oldestKept.id - 1)));
  }
  return kept.slice(0, RUM_SAMPLE_WINDOW).map((row) => row.value);
}

/** Adds the samples of one metric and path: stores them, trims the key's window, updates the key's aggregate. */
async function addSamples(
  tx: Tx,
  metric: RumMetric,
  path: string,
  samples: readonly RumSample[],
  now: number,
) {
  const rows = samples.map((sample) => ({
    metric,
    path,
    value: sample.value,
    rating: sample.rating ?? null,
    navigationType: sample.navigation_type ?? null,
    takenAt: sample.timestamp_ms ?? now,
    receivedAt: now,
  }));
  await tx.insert(rumSamples).values(rows);
  const p75 = percentile(await keepWindow(tx, metric, path), 75);
  const newest = rows.reduce((a, b) => (b.takenAt >= a.takenAt ? b : a));
  const added = rows.reduce((total, row) => total + row.value, 0);
  const key = and(eq(rumAggregates.metric, metric), eq(rumAggregates.path, path));
  const [current] = await tx.select().from(rumAggregates).where(key);
  if (current === undefined) {
    await tx.insert(rumAggregates).values({
      metric,
      path,
      count: rows.length,
      sum: added,
      p75,
      latest: newest.value,
      latestAt: newest.takenAt,
      updatedAt: now,
    });
    return;
  }
  const newer = newest.takenAt >= current.latestAt;
  await tx
    .update(rumAggregates)
    .set({
      count: current.count + rows.length,
      sum: current.sum + added,
      p75,
      latest: newer ? newest.value : current.latest,
      latestAt: newer ? newest.takenAt : current.latestAt,
      updatedAt: now,
    })
    .where(key);
}

/** Stores validated samples and updates their aggregates in one transaction (one update per metric and path). */
export async function ingestRum(
  db: LibSQLDatabase,
  samples: readonly RumSample[],
  now: number,
): Promise<RumAccepted> {
  return runTransaction(db, async (tx) => {
    const groups = new Map<string, { metric: RumMetric; path: string; samples: RumSample[] }>();
    for (const sample of samples) {
      const path = await storedPath(tx, sample.metric, normalizeRumPath(sample.path), groups);
      const id = `${sample.metric} ${path}`;
      const group = groups.get(id) ?? { metric: sample.metric, path, samples: [] };
      group.samples.push(sample);
      groups.set(id, group);
    }
    for (const group of groups.values()) await addSamples(tx, group.metric, group.path, group.samples, now);
    const [total] = await tx.select({ n: sum(rumAggregates.count) }).from(rumAggregates);
    return { accepted: samples.length, samples_total: Number(total?.n ?? 0) };
  });
}

/** Every aggregate, by metric then path. */
export async function listRumAggregates(db: LibSQLDatabase): Promise<RumAggregate[]> {
  const rows = await db
    .select()
    .from(rumAggregates)
    .orderBy(asc(rumAggregates.metric), asc(rumAggregates.path));
  return rows.map((row) => ({
    metric: row.metric,
    path: row.path,
    count: row.count,
    mean: row.count === 0 ? 0 : row.sum / row.count,
    p75: row.p75,
    latest: row.latest,
    latestAt: row.latestAt,
  }));
}
