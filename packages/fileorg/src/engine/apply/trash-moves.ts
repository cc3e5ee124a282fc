import type { SourceIdentity } from "../confined-fs.js";
import type { JournalRecord } from "../journal.js";
import { type MoveOutcome, type MoveScope, moveOne } from "../move-steps.js";
import { removeTrashInfo, trashInfoText, writeTrashInfo } from "../trash.js";
import type { PlannedMove } from "./group.js";

/**
 * One journaled move into the system trash or back out of it; its intent is already committed.
 *
 * `trash`: the `.trashinfo` is written first, atomically and with O_EXCL (an entry already there is never
 * overwritten: the row fails `TARGET_EXISTS` and reopens), then the file moves into `files/` by the same
 * confined link + unlink (or copy + verify) as any move; a move that fails removes the info it wrote.
 * `untrash`: the file moves back to where it was, then its info is removed.
 */
export async function moveTrashOne(
  record: JournalRecord,
  planned: PlannedMove,
  scope: MoveScope,
  forceCopy: boolean,
  at: number,
): Promise<MoveOutcome> {
  const trash = planned.trash;
  if (trash === undefined) throw new Error(`journal record ${record.id} has no trash slot`);
  const identity: SourceIdentity | null = planned.identity;
  if (trash.op === "trash") {
    const written = writeTrashInfo(trash.slot.info, trashInfoText(trash.slot, at));
    if (written === "exists") {
      return {
        record,
        state: "failed",
        error: {
          code: "TARGET_EXISTS",
          message: `${trash.slot.info} already exists; nothing was overwritten.`,
        },
      };
    }
    const moved = await moveOne(
      record,
      identity,
      { source: scope.source, target: [trash.slot.root] },
      forceCopy,
    );
    if (moved.state !== "done") removeTrashInfo(trash.slot.file, trash.original);
    return moved;
  }
  const moved = await moveOne(
    record,
    identity,
    { source: [trash.slot.root], target: scope.target },
    forceCopy,
  );
  if (moved.state === "done") removeTrashInfo(trash.slot.file, trash.original);
  return moved;
}
