/** The closed vocabularies of a comparison row, shared by the zod schema and the validator. */

/** Allowed values of a row's `status`. */
export const ROW_STATUSES = ["supported now", "partial", "planned", "research only", "not now"] as const;
/** A row's maturity. */
export type RowStatus = (typeof ROW_STATUSES)[number];

/** Allowed values of a row's `starterKind`. */
export const STARTER_KINDS = ["builder", "skill"] as const;
/** What kind of starter a row describes. */
export type StarterKind = (typeof STARTER_KINDS)[number];

/** Allowed values of a row's `hostFamily`. */
export const HOST_FAMILIES = ["codex", "claude-code", "openclaw", "mcp", "none"] as const;
/** The host a starter runs in. */
export type HostFamily = (typeof HOST_FAMILIES)[number];

/** Allowed values of a row's `firstSuccessMode`. */
export const FIRST_SUCCESS_MODES = [
  "runtime-invoke",
  "read-only-mcp",
  "provider-diagnostics",
  "docs-truth-sync",
] as const;
/** How a user reaches a first success with a starter. */
export type FirstSuccessMode = (typeof FIRST_SUCCESS_MODES)[number];
