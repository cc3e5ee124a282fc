import { APPLY_STAY_REASONS, type ApplyPlan, type ApplyResult, type ApplyWarning } from "@vetted/fileorg";
import type { Colors } from "picocolors/types";
import { plural } from "./style.js";

const STAY_WORDS: Record<string, string> = {
  unreviewed: "unreviewed (needs_review nobody approved or edited)",
  not_selected: "not asked for",
  conflict_open: "in an open conflict",
  skipped: "skipped",
  blocked: "blocked",
  already_applied: "already applied",
};

/** `2 unreviewed (…), 2 in an open conflict`, or undefined when nothing stays. */
function staysText(stays: ApplyPlan["stays"]): string | undefined {
  const parts = APPLY_STAY_REASONS.flatMap((reason) => {
    const n = stays[reason] ?? 0;
    return n > 0 ? [`${n} ${STAY_WORDS[reason] ?? reason}`] : [];
  });
  return parts.length === 0 ? undefined : parts.join(", ");
}

/** One bucket's line: `needs_review: 1 moves; stays: 2 unreviewed (…)`. */
function bucketLine(bucket: string, tally: ApplyPlan["by_bucket"]["auto_safe"]): string | undefined {
  const stays = staysText(tally.stays);
  if (tally.moves === 0 && stays === undefined) return undefined;
  return `  ${bucket}: ${tally.moves} ${tally.moves === 1 ? "moves" : "move"}${stays === undefined ? "" : `; stay: ${stays}`}`;
}

function warningLine(w: ApplyWarning): string {
  return w.code === "SYMLINK_TARGET_MOVED"
    ? `  ${w.code} ${w.link} → ${w.target} (moved to ${w.moved_to}): the link dangles`
    : `  ${w.code} ${w.link} → ${w.target}/ (${plural(w.files_moved, "file")} moved out${w.dangling === true ? "; the folder is gone: the link dangles" : ""})`;
}

/** What an apply (plan, dry run or result) moves and leaves, by bucket, with why, and its warnings. */
export function renderApplyBreakdown(plan: ApplyPlan | ApplyResult, c: Colors): string {
  const lines: string[] = [];
  if (plan.included_unreviewed > 0) {
    lines.push(
      c.yellow(`Includes ${plural(plan.included_unreviewed, "unreviewed file")}, named by the request.`),
    );
  }
  const stays = staysText(plan.stays);
  if (stays !== undefined) lines.push(`Left where they are: ${stays}.`);
  for (const [bucket, tally] of Object.entries(plan.by_bucket)) {
    const line = bucketLine(bucket, tally);
    if (line !== undefined) lines.push(line);
  }
  if ("warnings" in plan && plan.warnings.length > 0) {
    lines.push(c.yellow(`Warnings (${plan.moved_link_targets ?? plan.warnings.length}):`));
    for (const w of plan.warnings) lines.push(warningLine(w));
  }
  return lines.join("\n");
}
