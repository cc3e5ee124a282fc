import { OpenAPIHono } from "@hono/zod-openapi";
import { createEmbeddings, createLocalEmbedder } from "@vetted/runs/embeddings";
import { createProofEngine, type ProofEngine } from "@vetted/runs/proof";
import { createTelemetry } from "@vetted/runs/telemetry";
import { createTowerEngine } from "@vetted/runs/tower";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import type { AppDeps, AppEnv } from "./deps.js";
import { ErrorEnvelope, errorResponse, ServerError } from "./errors.js";
import { automationLanes, HEALTH_DEFAULTS } from "./health-report.js";
import { requireToken } from "./middleware/auth.js";
import { closeOnUnreadBody } from "./middleware/connection.js";
import { guardHost, guardOrigin, requireJsonBody } from "./middleware/guards.js";
import { limitJsonDepth } from "./middleware/json-depth.js";
import { rateLimit, WINDOW_MS } from "./middleware/rate-limit.js";
import { exceptScreenshotUploads, limitScreenshotUploads } from "./middleware/screenshot-uploads.js";
import { securityHeaders } from "./middleware/security-headers.js";
import { traceId } from "./middleware/trace.js";
import { createOpsMetrics, type OpsMetrics } from "./ops-metrics.js";
import { startRateSync } from "./rate-sync.js";
import { SlidingWindow } from "./rate-window.js";
import { createAutomationRoutes } from "./routes/automation.js";
import { createCategoryRoutes } from "./routes/categories.js";
import { createCommandTowerRoutes } from "./routes/command-tower.js";
import { createCommandTowerOverviewRoutes } from "./routes/command-tower-overview.js";
import { createComparisonRoutes } from "./routes/comparison.js";
import { createComputerUseRoutes } from "./routes/computer-use.js";
import { createEmbeddingRoutes } from "./routes/embeddings.js";
import { createEvidenceRoutes } from "./routes/evidence.js";
import { createFlowRoutes } from "./routes/flows.js";
import { createHealthRoutes } from "./routes/health.js";
import { createHealthOpsRoutes } from "./routes/health-ops.js";
import { createInboxRoutes } from "./routes/inbox.js";
import { createIntegrationRoutes } from "./routes/integrations.js";
import { createJobRoutes } from "./routes/jobs.js";
import { createMetricsRoutes } from "./routes/metrics.js";
import { createPreferencesRoutes } from "./routes/preferences.js";
import { createProofRoutes } from "./routes/proof.js";
import { createReconstructionRoutes } from "./routes/reconstruction.js";
import { createRegisterRoutes } from "./routes/register.js";
import { createReviewRoutes } from "./routes/review.js";
import { createRunRecoveryRoutes } from "./routes/run-recovery.js";
import { createRunRoutes } from "./routes/runs.js";
import { createRunLiveRoutes } from "./routes/runs-live.js";
import { createRunStreamRoutes } from "./routes/runs-stream.js";
import { createSessionRoutes } from "./routes/sessions.js";
import { createTemplateLifecycleRoutes } from "./routes/template-lifecycle.js";
import { createTemplateRoutes } from "./routes/templates.js";
import { createWebhookRoutes } from "./routes/webhooks.js";
import { validationHook } from "./validation.js";
import { createWebConsole } from "./web/console.js";
import { createDocsRoutes } from "./web/docs.js";

export type { AppDeps, AppEnv };

/**
 * Every request's middleware, in order: metrics, request and trace ids, security headers, logging, guards,
 * the token, rate limits (before any body is read), body limits, 405 answers.
 */
function useMiddleware(app: OpenAPIHono<AppEnv>, deps: AppDeps, ops: OpsMetrics): void {
  const { config, logger } = deps;
  const health = { ...HEALTH_DEFAULTS, ...deps.health };
  app.use(deps.metrics.httpMiddleware);
  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(traceId());
  app.use(securityHeaders());
  app.use(closeOnUnreadBody());
  app.use(async (c, next) => {
    c.set("actor", "local");
    const started = performance.now();
    await next();
    logger.debug("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(performance.now() - started),
      request_id: c.get("requestId"),
      trace_id: c.get("traceId"),
    });
  });
  app.use(guardHost(config.host, config.allowedHosts));
  if (config.corsOrigins.length > 0) {
    app.use(
      "/api/*",
      cors({
        origin: config.corsOrigins,
        exposeHeaders: ["X-Request-Id", "X-Trace-Id", "Retry-After"],
        maxAge: 600,
      }),
    );
  }
  app.use("/api/*", guardOrigin(config.corsOrigins));
  app.use("/api/*", requireToken(config.apiToken));
  const windows = new SlidingWindow(WINDOW_MS);
  if (health.rateLimitSyncMs > 0) {
    // Every server on this database counts every server's hits (exchanged in the background, no I/O per hit).
    startRateSync(deps.database.client, windows, {
      windowMs: WINDOW_MS,
      intervalMs: health.rateLimitSyncMs,
      onError: (err) => logger.warn("the rate-limit windows were not exchanged", { err }),
    });
  }
  const limits = rateLimit({
    perMinute: health.rateLimitPerMinute,
    anonPerMinute: health.rateLimitAnonPerMinute,
    tokenConfigured: config.apiToken !== undefined,
    onLimited: (info) => ops.rateLimited(info),
    windows,
  });
  app.use("/api/*", limits);
  app.use("/healthz", limits);
  app.use("/api/*", limitScreenshotUploads());
  app.use(
    "/api/*",
    exceptScreenshotUploads(
      bodyLimit({
        maxSize: config.maxBodyBytes,
        onError: () => {
          throw new ServerError(
            "PAYLOAD_TOO_LARGE",
            `The request body is larger than the limit of ${config.maxBodyBytes} bytes (VETTED_MAX_BODY_BYTES).`,
          );
        },
      }),
    ),
  );
  app.use("/api/*", requireJsonBody());
  app.use("/api/*", limitJsonDepth());
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        throw new ServerError(
          "METHOD_NOT_ALLOWED",
          `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(", ")}.`,
          { allowed: methods },
          { Allow: methods.join(", ") },
        );
      },
    }),
  );
}

/** Serves the OpenAPI 3.1 document generated from the routes' schemas, and its reference page. */
function documentApi(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config } = deps;
  app.doc31("/api/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Vetted API",
      version: deps.version,
      description: "File organization, run engine and comparison documents under one server.",
    },
    ...(config.apiToken === undefined ? {} : { security: [{ bearer: [] }] }),
  });
  app.route("/", createDocsRoutes());
}

/** The proof engine of an app built without one: over the run engine, its database and browser. */
function defaultProof(deps: AppDeps): ProofEngine {
  return createProofEngine({
    db: deps.database.db,
    similarFailures: (runId, limit) => deps.runs.similarFailures(runId, limit),
    browserAvailable: () => deps.browser.available,
  });
}

/** Builds the Hono app (never listens): middleware, every route family, the OpenAPI document and docs. */
export function createApp(deps: AppDeps) {
  const { config, logger } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const telemetry = deps.telemetry ?? createTelemetry({ db: deps.database.db });
  // One command tower for its two route groups.
  const tower = createTowerEngine({ db: deps.database.db, runs: deps.runs });
  const opsMetrics = createOpsMetrics(deps.metrics.registry, telemetry);

  useMiddleware(app, deps, opsMetrics);

  app.openAPIRegistry.register("ErrorEnvelope", ErrorEnvelope);
  if (config.apiToken !== undefined) {
    app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  }

  const routes = app
    .route("/", createHealthRoutes(deps))
    .route(
      "/",
      createHealthOpsRoutes({
        ...deps,
        startedAt: Date.now(),
        telemetry,
        lanes: deps.operatorLanes ?? automationLanes(deps.automation),
        opsMetrics,
        settings: { ...HEALTH_DEFAULTS, ...deps.health },
      }),
    )
    .route("/", createFlowRoutes(deps))
    .route("/", createTemplateRoutes(deps))
    .route("/", createTemplateLifecycleRoutes(deps))
    .route("/", createRunRecoveryRoutes(deps))
    .route("/", createRunStreamRoutes(deps))
    .route("/", createRunRoutes(deps))
    .route("/", createRunLiveRoutes(deps))
    .route("/", createEvidenceRoutes(deps))
    .route("/", createMetricsRoutes(deps))
    .route("/", createRegisterRoutes(deps))
    .route("/", createComparisonRoutes(deps))
    .route("/", createJobRoutes(deps))
    .route("/", createPreferencesRoutes(deps))
    .route("/", createCategoryRoutes(deps))
    .route("/", createInboxRoutes(deps))
    .route("/", createReviewRoutes(deps))
    .route("/", createSessionRoutes(deps))
    .route("/", createComputerUseRoutes(deps))
    .route("/", createReconstructionRoutes(deps))
    .route("/", createCommandTowerRoutes(tower))
    .route(
      "/",
      createCommandTowerOverviewRoutes(tower, {
        ...deps,
        startedAt: Date.now(),
        telemetry,
        lanes: deps.operatorLanes ?? automationLanes(deps.automation),
        opsMetrics,
        settings: { ...HEALTH_DEFAULTS, ...deps.health },
      }),
    )

    .route("/", createIntegrationRoutes(deps))
    .route("/", createAutomationRoutes(deps))
    .route("/", createWebhookRoutes(deps))
    .route(
      "/",
      createEmbeddingRoutes({ embeddings: deps.embeddings ?? createEmbeddings([createLocalEmbedder()]) }),
    )
    .route("/", createProofRoutes({ proof: deps.proof ?? defaultProof(deps) }));

  documentApi(app, deps);
  const web = createWebConsole(deps.webDist);
  app.route("/", web.routes);

  app.notFound(
    async (c) =>
      (await web.fallback(c)) ??
      errorResponse(
        c,
        new ServerError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}.`),
        (msg, err) => logger.error(msg, { err }),
      ),
  );
  app.onError((err, c) => errorResponse(c, err, (msg, e) => logger.error(msg, { err: e })));
  return routes;
}

/** The app's type, for typed clients (`hc<AppType>`). */
export type AppType = ReturnType<typeof createApp>;
