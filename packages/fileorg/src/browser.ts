/**
 * The browser-safe part of `@vetted/fileorg` (`@vetted/fileorg/browser`): pure domain code with no `node:`
 * import, no database and no dependency, for the web console — reason and bucket labels, which files get a thumbnail, and the
 * naming-template parser and renderer the live preview runs. Every name here is also exported, identical,
 * from `@vetted/fileorg`; `browser.test.ts` walks this module's import graph and fails if Node or a
 * package sneaks in.
 * @module
 */
export type { ReviewBucket } from "./domain/manifest.js";
export {
  isInside,
  type ParsedTemplate,
  parseTemplate,
  renderTemplate,
  sanitizeSegment,
  TEMPLATE_TOKENS,
  type TemplateContext,
  type TemplateMeta,
  type TemplateToken,
  TOKEN_FALLBACKS,
} from "./domain/naming-template.js";
export { type PreviewKind, previewKindOf } from "./domain/preview-kind.js";
export { BUCKET_LABELS, labelReason, REVIEW_REASON_LABELS } from "./domain/reason-labels.js";
