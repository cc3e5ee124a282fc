import type { RunsEngine, RunsObserver } from "@vetted/runs";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Logger } from "./logger.js";

/** The server's Prometheus registry and the hooks that feed it. */
export interface Metrics {
  registry: Registry;
  /** Counts requests by route and status and times them; mount first. */
  httpMiddleware: MiddlewareHandler;
  /** Hooks for the run engine. */
  runsObserver: RunsObserver;
  /** Lets the `runs` gauge read current counts at scrape time. */
  attachRuns(engine: Pick<RunsEngine, "countRunsByStatus">): void;
}

/** Creates a fresh registry (one per app, so tests never share counters). */
export function createMetrics(logger: Logger): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: "vetted_http_requests_total",
    help: "HTTP requests by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "vetted_http_request_duration_seconds",
    help: "HTTP request latency by method and route",
    labelNames: ["method", "route"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  let engine: Pick<RunsEngine, "countRunsByStatus"> | undefined;
  new Gauge({
    name: "vetted_runs",
    help: "Runs by status",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      if (engine === undefined) return;
      const counts = await engine.countRunsByStatus();
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  const gateWait = new Histogram({
    name: "vetted_runs_gate_wait_seconds",
    help: "How long gates stayed open before a person resolved them",
    labelNames: ["kind"] as const,
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [registry],
  });
  const resumeLatency = new Histogram({
    name: "vetted_runs_resume_latency_seconds",
    help: "From a resume being committed to the run's next step being claimed by a worker",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const timeouts = new Counter({
    name: "vetted_runs_timeouts_total",
    help: "Runs failed by a timeout (wait_timeout, run_timeout)",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const leaseExpirations = new Counter({
    name: "vetted_runs_lease_expirations_total",
    help: "Runs re-claimed because their worker's lease expired",
    registers: [registry],
  });

  const httpMiddleware: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const matched = routePath(c, -1);
      const route = matched.endsWith("*") ? "unmatched" : matched;
      requests.inc({ method: c.req.method, route, status: String(c.res.status) });
      duration.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
    }
  };

  return {
    registry,
    httpMiddleware,
    runsObserver: {
      gateResolved: ({ kind, waitedSeconds }) => gateWait.observe({ kind }, waitedSeconds),
      resumeToNextStep: (ms) => resumeLatency.observe(ms / 1000),
      timedOut: (reason) => timeouts.inc({ reason }),
      leaseExpired: () => leaseExpirations.inc(),
      error: (message, err) => logger.error(message, { err }),
    },
    attachRuns(e) {
      engine = e;
    },
  };
}
