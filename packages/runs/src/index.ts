/**
 * @module @vetted/runs
 *
 * The run engine of a UI-automation platform: flows as data (a registry of step types), templates with
 * validated params and policies, and durable runs that pause at one-time-code, approval and input gates,
 * resume with a compare-and-set, time out on schedule and survive restarts.
 */

export * from "./exports/automation.js";
export * from "./exports/browser.js";
export * from "./exports/core.js";
export * from "./exports/health.js";
export * from "./exports/integrations.js";
export * from "./exports/proof.js";
export * from "./exports/reconstruction.js";
export * from "./exports/template-lifecycle.js";
export * from "./exports/tower.js";
