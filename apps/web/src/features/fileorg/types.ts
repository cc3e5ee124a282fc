import type { components } from "../../api/schema.js";

type S = components["schemas"];
export type Job = S["FileorgJob"];
export type ManifestRow = S["FileorgManifestRow"];
export type ManifestView = S["FileorgManifestView"];
export type RowPreview = S["FileorgRowPreview"];
export type Conflict = S["FileorgConflict"];
export type JobReport = S["FileorgJobReport"];
export type ApplyPlan = S["FileorgApplyPlan"];
export type ApplyResult = S["FileorgApplyResult"];
export type ApplyWarning = S["FileorgApplyWarning"];
export type ConflictPreview = S["FileorgConflictPreview"];
