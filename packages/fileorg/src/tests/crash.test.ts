import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CrashBench, createCrashBench, type TrialOutcome } from "./crash-trials.js";

const FILES = 500;
const TRIALS = 20;

let bench: CrashBench;
beforeAll(async () => {
  bench = await createCrashBench(FILES);
}, 60_000);
afterAll(async () => {
  await bench?.close();
});

describe("crash safety", () => {
  it(`keeps every file exactly once with its hash across ${TRIALS} SIGKILLs mid-apply of ${FILES} files, and rolls back exactly`, async () => {
    const outcomes: TrialOutcome[] = [];
    for (let i = 0; i < TRIALS; i++) outcomes.push(await bench.trial());
    expect(outcomes.flatMap((o, i) => o.problems.map((p) => `trial ${i}: ${p}`))).toEqual([]);
    // The kills must really land mid-apply (some files moved, not all) in a good share of trials.
    const midway = outcomes.filter((o) => o.appliedBeforeRecovery > 0 && o.appliedBeforeRecovery < FILES);
    expect(midway.length).toBeGreaterThanOrEqual(5);
  }, 240_000);

  it("holds the same guarantees when a third of the rows go to the trash (6 SIGKILLs mid-trash-apply)", async () => {
    const trashBench = await createCrashBench(FILES, false, true);
    try {
      const outcomes: TrialOutcome[] = [];
      const midway = (o: TrialOutcome) => o.appliedBeforeRecovery > 0 && o.appliedBeforeRecovery < FILES;
      // Six kills, and more (up to twelve) until one lands mid-apply: on a loaded machine the kill window
      // takes a few trials to widen to where the moves are.
      while (outcomes.length < 6 || (outcomes.length < 12 && !outcomes.some(midway)))
        outcomes.push(await trashBench.trial());
      expect(outcomes.flatMap((o, i) => o.problems.map((p) => `trash trial ${i}: ${p}`))).toEqual([]);
      expect(outcomes.some(midway)).toBe(true);
    } finally {
      await trashBench.close();
    }
  }, 300_000);

  it("copy rows: a SIGKILL mid-apply never leaves a partial file under a copy's target, the source stays, rollback removes the copies (5 SIGKILLs)", async () => {
    const copyRows = await createCrashBench(FILES, false, false, true);
    try {
      const outcomes: TrialOutcome[] = [];
      const midway = (o: TrialOutcome) => o.appliedBeforeRecovery > 0 && o.appliedBeforeRecovery < FILES;
      // Five kills, and more (up to twelve) until one lands mid-apply, as for the trash rows above.
      while (outcomes.length < 5 || (outcomes.length < 12 && !outcomes.some(midway)))
        outcomes.push(await copyRows.trial());
      expect(outcomes.flatMap((o, i) => o.problems.map((p) => `copy-row trial ${i}: ${p}`))).toEqual([]);
      expect(outcomes.some(midway)).toBe(true);
    } finally {
      await copyRows.close();
    }
  }, 180_000);

  it("holds the same guarantees on the copy + fsync + verify path of cross-device moves (6 more SIGKILLs)", async () => {
    const copyBench = await createCrashBench(FILES, true);
    try {
      const outcomes: TrialOutcome[] = [];
      for (let i = 0; i < 6; i++) outcomes.push(await copyBench.trial());
      expect(outcomes.flatMap((o, i) => o.problems.map((p) => `copy trial ${i}: ${p}`))).toEqual([]);
    } finally {
      await copyBench.close();
    }
  }, 120_000);
});
