/**
 * The template lifecycle as data: a version starts `draft` (a fork) or `active` (created, promoted,
 * imported); activating one supersedes the family's active version; any version can be archived.
 */
export const TEMPLATE_STATUSES = ["draft", "active", "superseded", "archived"] as const;

/** A template version's lifecycle status. */
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** Every allowed move of a template version's status. */
export const TEMPLATE_TRANSITIONS = {
  draft: ["active", "archived"],
  active: ["superseded", "archived"],
  superseded: ["active", "archived"],
  archived: [],
} as const satisfies Record<TemplateStatus, readonly TemplateStatus[]>;

/** True when a template version may move from `from` to `to`. */
export function canMoveTemplate(from: TemplateStatus, to: TemplateStatus): boolean {
  return (TEMPLATE_TRANSITIONS[from] as readonly TemplateStatus[]).includes(to);
}
