// The template lifecycle (families, versions, recommended), recovery plans and wait guidance.
// Re-exported by `src/index.ts`.

export { isTemplateExport, type TemplateLifecycleHooks } from "../core/template-lifecycle.js";
export {
  planRecovery,
  RECOVERY_ACTION_IDS,
  type RecoverableRun,
  RecoverPlan,
  RecoveryAction,
  SAFETY_LEVELS,
} from "../domain/recover-plan.js";
export {
  ForkInput,
  PromoteInput,
  TEMPLATE_EXPORT_FORMAT,
  TemplateExport,
  TemplateHistory,
} from "../domain/template-lifecycle.js";
export { MASKED } from "../domain/template-mask.js";
export {
  canMoveTemplate,
  TEMPLATE_STATUSES,
  TEMPLATE_TRANSITIONS,
  type TemplateStatus,
} from "../domain/template-status.js";
export {
  describeWait,
  EvidenceRef,
  REQUIRED_ACTION_KINDS,
  RequiredAction,
  type WaitGuidance,
} from "../domain/wait-guidance.js";
