import { OpenAPIHono } from "@hono/zod-openapi";
import type { FileorgEngine, InboxEngine, Job, PreferencesEngine, ReviewEngine } from "@vetted/fileorg";
import {
  type BrowserHost,
  type ComputerUseEngine,
  createEmbeddings,
  createLocalEmbedder,
  type Embeddings,
  type RunsEngine,
  type SessionsEngine,
} from "@vetted/runs";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import type { Config, VonageSettings } from "./config.js";
import type { OpenDatabase } from "./db.js";
import { ErrorEnvelope, errorResponse, ServerError } from "./errors.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import { requireToken } from "./middleware/auth.js";
import { closeOnUnreadBody } from "./middleware/connection.js";
import { guardHost, guardOrigin, requireJsonBody } from "./middleware/guards.js";
import { limitJsonDepth } from "./middleware/json-depth.js";
import { exceptScreenshotUploads, limitScreenshotUploads } from "./middleware/screenshot-uploads.js";
import { createCategoryRoutes } from "./routes/categories.js";
import { createComparisonRoutes } from "./routes/comparison.js";
import { createComputerUseRoutes } from "./routes/computer-use.js";
import { createEmbeddingRoutes } from "./routes/embeddings.js";
import { createEvidenceRoutes } from "./routes/evidence.js";
import { createFlowRoutes } from "./routes/flows.js";
import { createHealthRoutes } from "./routes/health.js";
import { createInboxRoutes } from "./routes/inbox.js";
import { createIntegrationRoutes } from "./routes/integrations.js";
import { createJobRoutes } from "./routes/jobs.js";
import { createMetricsRoutes } from "./routes/metrics.js";
import { createPreferencesRoutes } from "./routes/preferences.js";
import { createRegisterRoutes } from "./routes/register.js";
import { createReviewRoutes } from "./routes/review.js";
import { createRunRoutes } from "./routes/runs.js";
import { createSessionRoutes } from "./routes/sessions.js";
import { createTemplateRoutes } from "./routes/templates.js";
import { validationHook } from "./validation.js";
import { createWebConsole } from "./web/console.js";
import { createDocsRoutes } from "./web/docs.js";

/** What the app is built from; `main.ts` assembles it, tests build their own. */
export interface AppDeps {
  config: Pick<Config, "host" | "apiToken" | "allowedHosts" | "corsOrigins" | "maxBodyBytes" | "frontendUrl">;
  database: OpenDatabase;
  databaseIsFile: boolean;
  version: string;
  logger: Logger;
  /** The run engine (flows, templates, runs). */
  runs: RunsEngine;
  /** The Prometheus registry and its hooks. */
  metrics: Metrics;
  /** The browser host (one Chromium for every session and run); unavailable when none was found. */
  browser: BrowserHost;
  /** Recording sessions in the browser (`/api/sessions`; see `createBrowserLanes`). */
  sessions: SessionsEngine;
  /** Computer use (`/api/computer-use/sessions`; see `createBrowserLanes`). */
  computerUse: ComputerUseEngine;
  /** The file organization engine (its runner is started by `main.ts`). */
  fileorg: FileorgEngine;
  /** File-organizer preferences: naming templates, review rules, views, watch sources, runtime, packs. */
  preferences: PreferencesEngine;
  /** The inbox: watches enabled watch sources and reports new stable files (start/stop in main.ts). */
  inbox: InboxEngine<Job>;
  /** Review of manifests: queue, batch triage, rules, learning. */
  review: ReviewEngine;
  /** Inbound Vonage SMS settings; absent = the integration answers 503 INTEGRATION_NOT_CONFIGURED. */
  vonage?: VonageSettings;
  /** The embeddings models (default: the local one alone, loaded on first use). */
  embeddings?: Embeddings;
  /** The built web console (`VETTED_WEB_DIST`); absent = `/` answers a page saying how to build it. */
  webDist?: string | undefined;
  /** The comparison document `GET /api/comparison/document` reads (`VETTED_COMPARISON_FILE`). */
  comparisonFile?: string | undefined;
  /** Idle milliseconds before an event stream sends a heartbeat comment (default 15 s; tests shorten it). */
  sseHeartbeatMs?: number;
}

/** Per-request variables set by middleware. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Who made the request: `token` when authenticated with the API token, else `local`. */
    actor: string;
  };
}

/** Every request's middleware, in order: metrics, request id, logging, guards, limits, 405 answers. */
function useMiddleware(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config, logger } = deps;
  app.use(deps.metrics.httpMiddleware);
  app.use(requestId({ headerName: "X-Request-Id" }));
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
    });
  });
  app.use(guardHost(config.host, config.allowedHosts));
  if (config.corsOrigins.length > 0) {
    app.use("/api/*", cors({ origin: config.corsOrigins, exposeHeaders: ["X-Request-Id"], maxAge: 600 }));
  }
  app.use("/api/*", guardOrigin(config.corsOrigins));
  app.use("/api/*", requireToken(config.apiToken));
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

/** Builds the Hono app (never listens): middleware, every route family, the OpenAPI document and docs. */
export function createApp(deps: AppDeps) {
  const { config, logger } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  useMiddleware(app, deps);

  app.openAPIRegistry.register("ErrorEnvelope", ErrorEnvelope);
  if (config.apiToken !== undefined) {
    app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  }

  const routes = app
    .route("/", createHealthRoutes(deps))
    .route("/", createFlowRoutes(deps))
    .route("/", createTemplateRoutes(deps))
    .route("/", createRunRoutes(deps))
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

    .route("/", createIntegrationRoutes(deps))
    .route(
      "/",
      createEmbeddingRoutes({ embeddings: deps.embeddings ?? createEmbeddings([createLocalEmbedder()]) }),
    );

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
