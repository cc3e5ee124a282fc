import type { ApplyResult, ApplyWarning } from "./types.js";

const STAY_LABELS: Record<string, string> = {
  unreviewed: "nobody reviewed them",
  not_selected: "not among the rows asked for",
  conflict_open: "in an open conflict",
  skipped: "skipped",
  blocked: "blocked",
  already_applied: "already applied",
};

/** True when an apply job's result is an apply result (it reports its buckets). */
export function isApplyResult(result: unknown): result is ApplyResult {
  return typeof result === "object" && result !== null && "by_bucket" in result && "stays" in result;
}

function warningText(w: ApplyWarning): string {
  return w.code === "SYMLINK_TARGET_MOVED"
    ? `The symlink ${w.link} points at ${w.target}, which moved to ${w.moved_to}: the link dangles.`
    : `The folder link ${w.link} points at ${w.target}, out of which ${w.files_moved} file(s) moved${w.dangling === true ? "; the folder is gone, the link dangles" : ""}.`;
}

/** What stays and why, and every warning of an apply (or its dry run). */
export function ApplyOutcome({ result, label }: { result: ApplyResult; label: string }) {
  const stays = Object.entries(result.stays).filter(([, n]) => (n ?? 0) > 0);
  return (
    <div>
      {result.included_unreviewed > 0 ? (
        <p>
          <strong>Includes {result.included_unreviewed} file(s) nobody reviewed</strong> (named by the
          request).
        </p>
      ) : null}
      {stays.length > 0 ? (
        <ul aria-label={`${label}: files that stay`}>
          {stays.map(([reason, n]) => (
            <li key={reason} data-stays={reason}>
              {n} stay: {STAY_LABELS[reason] ?? reason}
            </li>
          ))}
        </ul>
      ) : null}
      {result.warnings.length > 0 ? (
        <ul aria-label={`${label}: warnings`}>
          {result.warnings.map((w) => (
            <li key={`${w.code}:${w.row_id}`}>
              <code>{w.code}</code> {warningText(w)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
