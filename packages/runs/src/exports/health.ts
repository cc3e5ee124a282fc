// Service health: alerts over finished runs and tasks, real-user monitoring (RUM) of the console.
// Re-exported by `src/index.ts`.

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
} from "../domain/alerts.js";
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
} from "../domain/telemetry.js";
export {
  createTelemetry,
  type RunHealth,
  type Telemetry,
  type TelemetryOptions,
} from "../lanes/telemetry/index.js";
