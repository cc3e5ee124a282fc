import { z } from "zod";

/** The web vitals the telemetry ingest accepts. */
export const RUM_METRICS = ["LCP", "INP", "CLS", "FCP", "TTFB", "TBT"] as const;
/** A web-vital metric name. */
export type RumMetric = (typeof RUM_METRICS)[number];

/** How the browser rated a sample (web-vitals' thresholds). */
export const RUM_RATINGS = ["good", "needs-improvement", "poor"] as const;

/** The most samples one request may carry. */
export const MAX_RUM_BATCH = 100;
/** How many recent samples of each metric and path are kept; the p75 is computed over them. */
export const RUM_SAMPLE_WINDOW = 500;
/** The most distinct paths kept per metric; samples of further paths count under {@link RUM_OTHER_PATH}. */
export const MAX_RUM_PATHS = 200;
/** The path label of samples that name no path. */
export const RUM_NO_PATH = "(none)";
/** The path label of samples past {@link MAX_RUM_PATHS}. */
export const RUM_OTHER_PATH = "(other)";

/** One web-vital sample as the browser sends it. */
export const RumSample = z
  .object({
    metric: z.enum(RUM_METRICS),
    value: z.number().min(0).max(1e9),
    rating: z.enum(RUM_RATINGS).optional(),
    path: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: "The page path; query and fragment are dropped" }),
    navigation_type: z.string().max(40).optional(),
    timestamp_ms: z.number().int().min(0).optional(),
  })
  .meta({ id: "RumSample" });
export type RumSample = z.infer<typeof RumSample>;

/** A single sample or a batch of up to {@link MAX_RUM_BATCH}. */
export const RumIngest = z
  .union([RumSample, z.object({ samples: z.array(RumSample).min(1).max(MAX_RUM_BATCH) })])
  .meta({ id: "RumIngest" });
export type RumIngest = z.infer<typeof RumIngest>;

/** What an ingest answers: how many samples this request added, and how many were ever received. */
export const RumAccepted = z
  .object({ accepted: z.number().int(), samples_total: z.number().int() })
  .meta({ id: "RumAccepted" });
export type RumAccepted = z.infer<typeof RumAccepted>;

/** The aggregate of one metric on one path. */
export interface RumAggregate {
  metric: RumMetric;
  path: string;
  count: number;
  mean: number;
  p75: number;
  latest: number;
  latestAt: number;
}

/** The samples of an ingest body, single or batch. */
export function samplesOf(body: RumIngest): RumSample[] {
  return "samples" in body ? body.samples : [body];
}

/**
 * The label a sample's path is aggregated under: the path alone (no origin, query or fragment), at most 200
 * characters, or {@link RUM_NO_PATH}.
 */
export function normalizeRumPath(path: string | undefined): string {
  if (path === undefined || path.trim() === "") return RUM_NO_PATH;
  let bare = path.trim();
  try {
    bare = new URL(bare, "http://x").pathname;
  } catch {
    bare = bare.split(/[?#]/)[0] ?? "";
  }
  if (!bare.startsWith("/")) bare = `/${bare}`;
  return bare.slice(0, 200);
}

/** The p-th percentile (0 < p ≤ 100) of `values` by the nearest-rank method; 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1] ?? 0;
}
