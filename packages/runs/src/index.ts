/**
 * @module @vetted/runs
 *
 * The run engine of a UI-automation platform: flows as data (a registry of step types), templates with
 * validated params and policies, and durable runs that pause at one-time-code, approval and input gates,
 * resume with a compare-and-set, time out on schedule and survive restarts.
 *
 * This entry is the run core (`core/index.ts`) and {@link createRunsEngine}. Each lane is its own entry,
 * `@vetted/runs/<lane>` (its folder's `index.ts`), so importing the engine does not build the lanes' schemas
 * and code: a name is public when its folder's index exports it, and nowhere else is it listed.
 */

export * from "./core/index.js";
export { createRunsEngine, type RunsEngine, type RunsEngineOptions } from "./platform.js";
