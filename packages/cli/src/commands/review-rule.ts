import { confirm, isCancel, log, note, text } from "@clack/prompts";
import type { ReviewRuleInput } from "@vetted/fileorg";
import type { Backend } from "../backend/backend.js";
import type { PromptStreams } from "./review-steps.js";

/** A rule's conditions and actions, one per line, for people. */
export function describeRule(rule: ReviewRuleInput): string {
  const conditions = Object.entries(rule.conditions).flatMap(([group, list]) =>
    (list ?? []).map((condition: unknown) => `${group}: ${JSON.stringify(condition)}`),
  );
  const actions = rule.actions.map((action) => `then: ${JSON.stringify(action)}`);
  return [...conditions, ...actions].join("\n");
}

/**
 * Drafts a rule from the rows the person corrected, shows it and what it would change in this manifest,
 * and saves it when the person agrees. Answers the saved rule's id, or undefined.
 */
export async function draftPreviewSave(
  io: PromptStreams,
  backend: Backend,
  jobId: string,
  corrected: readonly string[],
): Promise<string | undefined> {
  const wants = await confirm({
    ...io,
    message: `Draft a rule from the ${corrected.length} rows you corrected?`,
  });
  if (isCancel(wants) || !wants) return undefined;
  const draft = await backend.draftRule(jobId, [...corrected]);
  note(describeRule(draft.draft), `Draft: ${draft.draft.name}`, { output: io.output });
  for (const warning of draft.warnings) log.warn(warning, { output: io.output });
  const preview = await backend.previewRule(jobId, draft.draft);
  const changed = preview.matches.filter((m) => Object.keys(m.changes).length > 0).length;
  log.info(
    `Preview: the rule matches ${preview.matched_count} rows of this plan and would change ${changed} of them.`,
    { output: io.output },
  );
  const save = await confirm({ ...io, message: "Save this rule for the next plans?" });
  if (isCancel(save) || !save) return undefined;
  const name = await text({
    ...io,
    message: "Rule name",
    defaultValue: draft.draft.name,
    placeholder: draft.draft.name,
  });
  if (isCancel(name)) return undefined;
  const { id: _draftId, ...rule } = draft.draft;
  const saved = await backend.saveRule({
    ...rule,
    name: name.trim() === "" ? draft.draft.name : name.trim(),
  });
  log.success(`Saved rule ${saved.id} (${saved.name}).`, { output: io.output });
  return saved.id;
}
