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

/** The path a new sample is stored under: its own, or `(other)` once the metric has {@link MAX_RUM_PATHS}. */
async function storedPath(tx: Tx, metric: RumMetric, path: string): Promise<string> {
  const [known] = await tx
    .select({ path: rumAggregates.path })
    .from(rumAggregates)
    .where(and(eq(rumAggregates.metric, metric), eq(rumAggregates.path, path)));
  if (known !== undefined) return path;
  const [paths] = await tx.select({ n: count() }).from(rumAggregates).where(eq(rumAggregates.metric, metric));
  return (paths?.n ?? 0) >= MAX_RUM_PATHS ? RUM_OTHER_PATH : path;
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

/** Adds one sample: stores it, trims the key's window, and updates the key's aggregate. */
async function addSample(tx: Tx, sample: RumSample, now: number): Promise<void> {
  const path = await storedPath(tx, sample.metric, normalizeRumPath(sample.path));
  const takenAt = sample.timestamp_ms ?? now;
  await tx.insert(rumSamples).values({
    metric: sample.metric,
    path,
    value: sample.value,
    rating: sample.rating ?? null,
    navigationType: sample.navigation_type ?? null,
    takenAt,
    receivedAt: now,
  });
  const p75 = percentile(await keepWindow(tx, sample.metric, path), 75);
  const [current] = await tx
    .select()
    .from(rumAggregates)
    .where(and(eq(rumAggregates.metric, sample.metric), eq(rumAggregates.path, path)));
  if (current === undefined) {
    await tx.insert(rumAggregates).values({
      metric: sample.metric,
      path,
      count: 1,
      sum: sample.value,
      p75,
      latest: sample.value,
      latestAt: takenAt,
      updatedAt: now,
    });
    return;
  }
  const newer = takenAt >= current.latestAt;
  await tx
    .update(rumAggregates)
    .set({
      count: current.count + 1,
      sum: current.sum + sample.value,
      p75,
      latest: newer ? sample.value : current.latest,
      latestAt: newer ? takenAt : current.latestAt,
      updatedAt: now,
    })
    .where(and(eq(rumAggregates.metric, sample.metric), eq(rumAggregates.path, path)));
}

/** Stores validated samples and updates their aggregates in one transaction. */
export async function ingestRum(
  db: LibSQLDatabase,
  samples: readonly RumSample[],
  now: number,
): Promise<RumAccepted> {
  return runTransaction(db, async (tx) => {
    for (const sample of samples) await addSample(tx, sample, now);
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
