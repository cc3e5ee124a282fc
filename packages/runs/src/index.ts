/**
 * @module @vetted/runs
 *
 * The run engine of a UI-automation platform: flows as data (a registry of step types), templates with
 * validated params and policies, and durable runs that pause at one-time-code, approval and input gates,
 * resume with a compare-and-set, time out on schedule and survive restarts.
 *
 * The public API is the core's (`core/index.ts`) and each lane's `index.ts`, re-exported whole: a name
 * is public when its folder's index exports it, and nowhere else is it listed.
 */

export * from "./core/index.js";
export * from "./lanes/automation/index.js";
export * from "./lanes/computer-use/index.js";
export * from "./lanes/embeddings/index.js";
export * from "./lanes/inbound-sms/index.js";
export * from "./lanes/proof/index.js";
export * from "./lanes/reconstruction/index.js";
export * from "./lanes/sessions/index.js";
export * from "./lanes/telemetry/index.js";
export * from "./lanes/tower/index.js";
export * from "./lanes/webhooks/index.js";
export { createRunsEngine, type RunsEngine, type RunsEngineOptions } from "./platform.js";
