import { useEffect, useRef } from "react";
import type { ApplyPlan } from "./types.js";

/** How many rows an apply of `plan` leaves unreviewed or in an open conflict. */
export function leftBehind(plan: ApplyPlan): { unreviewed: number; conflicts: number } {
  return { unreviewed: plan.stays.unreviewed ?? 0, conflicts: plan.stays.conflict_open ?? 0 };
}

/** True when a real apply of `plan` must be confirmed: something is left unreviewed or in conflict. */
export function needsConfirmation(plan: ApplyPlan): boolean {
  const left = leftBehind(plan);
  return left.unreviewed > 0 || left.conflicts > 0;
}

function files(n: number): string {
  return `${n} ${n === 1 ? "file" : "files"}`;
}

/**
 * The question asked before a real apply that leaves rows behind: it names how many files move, how many
 * nobody reviewed and how many are in an open conflict (those stay where they are).
 */
export function ApplyConfirm({
  plan,
  onConfirm,
  onCancel,
}: {
  plan: ApplyPlan;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  const left = leftBehind(plan);
  return (
    <div className="modal-backdrop">
      <div
        className="modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="apply-confirm-title"
        aria-describedby="apply-confirm-body"
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
        }}
      >
        <h2 id="apply-confirm-title">Apply with files left behind?</h2>
        <div id="apply-confirm-body">
          <p>{files(plan.rows)} will move. These stay where they are:</p>
          <ul>
            <li>{files(left.unreviewed)} nobody reviewed (needs review)</li>
            <li>{files(left.conflicts)} in an open conflict</li>
          </ul>
        </div>
        <button type="button" className="primary" onClick={onConfirm}>
          Move {files(plan.rows)}
        </button>
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
