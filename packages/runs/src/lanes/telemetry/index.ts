import { type Clock, systemClock } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { type RumIngest, samplesOf } from "../../domain/telemetry.js";
import { ingestRum, listRumAggregates } from "./rum.js";
import { type RunHealthQuery, readRunHealth } from "./run-health.js";

// The telemetry lane (service health): alerts over finished runs and tasks, real-user monitoring of the
// console, run health. `src/index.ts` re-exports this file as the lane's public API.

export {
  ALERT_CODES,
  ALERT_SEVERITIES,
  type Alert,
  type AlertCode,
  type AlertFacts,
  type AlertSeverity,
  decideAlerts,
  type FinishedCounts,
  failureRate,
  severityFor,
} from "../../domain/alerts.js";
export {
  MAX_RUM_BATCH,
  MAX_RUM_PATHS,
  normalizeRumPath,
  percentile,
  RUM_METRICS,
  RUM_NO_PATH,
  RUM_OTHER_PATH,
  RUM_RATINGS,
  RUM_SAMPLE_WINDOW,
  RumAccepted,
  type RumAggregate,
  RumIngest,
  type RumMetric,
  RumSample,
  samplesOf,
} from "../../domain/telemetry.js";

/** What {@link createTelemetry} is built from. */
export interface TelemetryOptions {
  db: LibSQLDatabase;
  clock?: Clock;
}

/**
 * The health lane's persistence: browser telemetry (web-vital samples and their per-metric, per-path
 * aggregates) and the run facts diagnostics and alerts are built from.
 */
export function createTelemetry(options: TelemetryOptions) {
  const { db } = options;
  const clock = options.clock ?? systemClock;
  return {
    /** Stores validated samples (single or batch) and updates their aggregates in one transaction. */
    ingestRum: (body: RumIngest) => ingestRum(db, samplesOf(body), clock.now()),
    /** Every aggregate (count, mean, p75 of the recent window, latest), by metric then path. */
    listRumAggregates: () => listRumAggregates(db),
    /**
     * Run counts by status, runs finished since `windowMs` ago, leases held and expired, stuck runs and
     * gates expiring within `gateHorizonMs`.
     */
    runHealth: (windowMs: number, gateHorizonMs: number) => {
      const now = clock.now();
      const q: RunHealthQuery = { now, windowStart: now - windowMs, gateHorizonEnd: now + gateHorizonMs };
      return readRunHealth(db, q);
    },
  };
}

/** The telemetry lane. */
export type Telemetry = ReturnType<typeof createTelemetry>;
export type { RunHealth } from "./run-health.js";
