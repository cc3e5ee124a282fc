/**
 * @module @vetted/cli
 *
 * The `vetted` command as a function: organize a folder from the terminal (plan, review, apply, undo),
 * standalone over an embedded database or against a Vetted server, with the same output either way.
 */

export type { Backend, PageQuery, Saved } from "./backend/backend.js";
export { BackendError } from "./backend/backend.js";
export { createHttpBackend, type HttpBackendOptions } from "./backend/http.js";
export { createLocalBackend } from "./backend/local.js";
export { openBackend } from "./backend/open.js";
export { CliError, EXIT, type ExitCode } from "./exit.js";
export { type CliIo, processIo } from "./io.js";
export { followJob, type JobProgress } from "./job-wait.js";
export { loadPlan, type PlanJson, type PlanSummary } from "./plan.js";
export { runVetted } from "./program.js";
export { type CliSettings, type GlobalOptions, loadSettings } from "./settings.js";
export { CLI_VERSION } from "./version.js";
