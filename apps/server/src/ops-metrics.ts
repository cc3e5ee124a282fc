import type { Telemetry } from "@vetted/runs/telemetry";
import { Counter, Gauge, type Registry } from "prom-client";

/** The health lane's metrics: refused requests, and the web-vital aggregates read at scrape time. */
export interface OpsMetrics {
  /** Counts a request refused by the rate limiter. */
  rateLimited(info: { family: string; anonymous: boolean }): void;
  /** A few totals of the registry, for diagnostics. */
  snapshot(): Promise<MetricsSnapshot>;
}

/** What diagnostics report of the metrics. */
export interface MetricsSnapshot {
  http_requests_total: number;
  http_server_errors_total: number;
  rate_limited_total: number;
  runs_timeouts_total: number;
  runs_lease_expirations_total: number;
  rum_samples_total: number;
}

/** The metric, registered once per registry (an app rebuilt over the same registry reuses it). */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

function rumGauge(registry: Registry, telemetry: Telemetry, field: "count" | "mean" | "p75" | "latest") {
  const name = `vetted_rum_${field}`;
  once(
    registry,
    name,
    () =>
      new Gauge({
        name,
        help: `Web vitals sent by browsers: ${field === "p75" ? "75th percentile of the recent samples" : field} by metric and page path`,
        labelNames: ["metric", "path"] as const,
        registers: [registry],
        async collect() {
          this.reset();
          for (const a of await telemetry.listRumAggregates())
            this.set({ metric: a.metric, path: a.path }, a[field]);
        },
      }),
  );
}

/** The sum of a counter's values (those whose labels `keep` accepts). */
async function total(registry: Registry, name: string, keep?: (labels: Record<string, unknown>) => boolean) {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  return values.filter((v) => keep === undefined || keep(v.labels)).reduce((sum, v) => sum + v.value, 0);
}

/** Registers the health lane's metrics on `registry`. */
export function createOpsMetrics(registry: Registry, telemetry: Telemetry): OpsMetrics {
  const limited = once(
    registry,
    "vetted_rate_limited_total",
    () =>
      new Counter({
        name: "vetted_rate_limited_total",
        help: "Requests refused with 429 RATE_LIMITED, by route family and whether the caller was anonymous",
        labelNames: ["family", "anonymous"] as const,
        registers: [registry],
      }),
  );
  for (const field of ["count", "mean", "p75", "latest"] as const) rumGauge(registry, telemetry, field);
  return {
    rateLimited: ({ family, anonymous }) => limited.inc({ family, anonymous: String(anonymous) }),
    async snapshot() {
      const rum = await telemetry.listRumAggregates();
      return {
        http_requests_total: await total(registry, "vetted_http_requests_total"),
        http_server_errors_total: await total(registry, "vetted_http_requests_total", (l) =>
          String(l.status ?? "").startsWith("5"),
        ),
        rate_limited_total: await total(registry, "vetted_rate_limited_total"),
        runs_timeouts_total: await total(registry, "vetted_runs_timeouts_total"),
        runs_lease_expirations_total: await total(registry, "vetted_runs_lease_expirations_total"),
        rum_samples_total: rum.reduce((sum, a) => sum + a.count, 0),
      };
    },
  };
}
