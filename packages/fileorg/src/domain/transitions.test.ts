import { describe, expect, it } from "vitest";
import { FileorgError, IllegalTransitionError } from "../errors.js";
import { JOB_EVENT_TYPES } from "./job.js";
import {
  CONFLICT_STATUS_EVENTS,
  CONFLICT_STATUSES,
  CONFLICT_TRANSITIONS,
  decideJobOutcome,
  FINISHED_JOB_STATUSES,
  INITIAL_STATUS,
  JOB_STATUS_EVENTS,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  moveConflict,
  moveJob,
  moveRow,
  ROW_STATUS_EVENTS,
  ROW_STATUSES,
  ROW_TRANSITIONS,
  sourcesOf,
} from "./transitions.js";

const machines = [
  { name: "job", table: JOB_TRANSITIONS, statuses: JOB_STATUSES, move: moveJob },
  { name: "row", table: ROW_TRANSITIONS, statuses: ROW_STATUSES, move: moveRow },
  { name: "conflict", table: CONFLICT_TRANSITIONS, statuses: CONFLICT_STATUSES, move: moveConflict },
] as const;

describe("transition tables", () => {
  for (const { name, table, statuses, move } of machines) {
    const moveAny = move as (from: string, to: string, subject?: string) => string;
    const legal = (from: string, to: string) =>
      (table as Record<string, readonly string[]>)[from]?.includes(to);

    it(`${name}: every legal move succeeds and every illegal one throws ILLEGAL_TRANSITION`, () => {
      let legalCount = 0;
      let illegalCount = 0;
      for (const from of statuses) {
        for (const to of statuses) {
          if (legal(from, to)) {
            expect(moveAny(from, to, "x1")).toBe(to);
            legalCount++;
          } else {
            let thrown: unknown;
            try {
              moveAny(from, to, "x1");
            } catch (err) {
              thrown = err;
            }
            expect(thrown, `${from} → ${to}`).toBeInstanceOf(IllegalTransitionError);
            expect(thrown).toBeInstanceOf(FileorgError);
            expect((thrown as FileorgError).code).toBe("ILLEGAL_TRANSITION");
            expect((thrown as FileorgError).details).toEqual({ machine: name, from, to, subject: "x1" });
            illegalCount++;
          }
        }
      }
      expect(legalCount).toBeGreaterThan(0);
      expect(illegalCount).toBeGreaterThan(0);
    });

    it(`${name}: every target of the table is one of its statuses, and statuses are its keys`, () => {
      expect([...statuses]).toEqual(Object.keys(table));
      for (const targets of Object.values(table) as ReadonlyArray<readonly string[]>) {
        for (const to of targets) expect(statuses as readonly string[]).toContain(to);
      }
    });

    it(`${name}: a status outside the table is refused`, () => {
      expect(() => moveAny("bogus", statuses[0])).toThrow(IllegalTransitionError);
    });
  }
});

describe("the tables together", () => {
  it("finished job statuses are exactly the ones the job table never leaves", () => {
    const dead = JOB_STATUSES.filter((s) => JOB_TRANSITIONS[s].length === 0);
    expect([...FINISHED_JOB_STATUSES].sort()).toEqual([...dead].sort());
  });

  it("every status is reachable from the initial one", () => {
    for (const { name, table, statuses } of machines) {
      const start = INITIAL_STATUS[name];
      const seen = new Set<string>([start]);
      const queue: string[] = [start];
      for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
        for (const to of (table as Record<string, readonly string[]>)[s] ?? []) {
          if (!seen.has(to)) {
            seen.add(to);
            queue.push(to);
          }
        }
      }
      expect([...seen].sort(), name).toEqual([...statuses].sort());
    }
  });

  it("the events named by the tables are job event types", () => {
    const named = [
      ...Object.values(JOB_STATUS_EVENTS),
      ...Object.values(ROW_STATUS_EVENTS),
      ...Object.values(CONFLICT_STATUS_EVENTS),
    ].filter((e): e is NonNullable<typeof e> => e !== null);
    for (const e of named) expect(JOB_EVENT_TYPES as readonly string[]).toContain(e);
    expect(new Set(JOB_EVENT_TYPES).size).toBe(JOB_EVENT_TYPES.length);
    // The same event types as before the tables existed (plus the ones added since): the API's enum is pinned.
    expect([...JOB_EVENT_TYPES].sort()).toEqual(
      [
        "created",
        "started",
        "progress",
        "phase",
        "row_applied",
        "row_failed",
        "row_rolled_back",
        "conflict_opened",
        "conflict_resolved",
        "manifest_edited",
        "cancel_requested",
        "recovered",
        "finished",
        // Added with issue 11: a succeeded job whose rows partly failed says so before `finished`.
        "finished_with_errors",
      ].sort(),
    );
  });

  it("sourcesOf lists the statuses a target is reachable from", () => {
    expect(sourcesOf(ROW_TRANSITIONS, "applied").sort()).toEqual(
      ["failed", "pending", "rolled_back", "skipped"].sort(),
    );
    expect(sourcesOf(JOB_TRANSITIONS, "running")).toEqual(["queued"]);
    expect(sourcesOf(CONFLICT_TRANSITIONS, "open")).toEqual(["resolved"]);
  });
});

describe("decideJobOutcome", () => {
  const ok = { rows: 1 };
  it("succeeds a job whose body returned normally", () => {
    expect(decideJobOutcome({ current: "running", stopping: false, result: ok, thrown: null })).toEqual({
      status: "succeeded",
      error: null,
    });
  });
  it("cancels a job whose cancel was requested, whatever the body returned", () => {
    for (const result of [ok, { cancelled: true }, { failed_code: "X" }]) {
      expect(decideJobOutcome({ current: "cancelling", stopping: false, result, thrown: null }).status).toBe(
        "cancelled",
      );
    }
  });
  it("fails as INTERRUPTED a job the shutdown stopped early", () => {
    expect(
      decideJobOutcome({ current: "running", stopping: true, result: { cancelled: true }, thrown: null }),
    ).toEqual({
      status: "failed",
      error: { code: "INTERRUPTED", message: "The server stopped while the job ran; retry it." },
    });
  });
  it("cancels a job stopped early without shutdown (lost lease)", () => {
    expect(
      decideJobOutcome({ current: "running", stopping: false, result: { cancelled: true }, thrown: null })
        .status,
    ).toBe("cancelled");
  });
  it("fails with the result's failed_code, or the thrown error", () => {
    expect(
      decideJobOutcome({
        current: "running",
        stopping: false,
        result: { failed_code: "EMPTY", failed_message: "nothing" },
        thrown: null,
      }),
    ).toEqual({ status: "failed", error: { code: "EMPTY", message: "nothing" } });
    const thrown = { code: "JOB_FAILED", message: "boom" };
    expect(decideJobOutcome({ current: "cancelling", stopping: false, result: null, thrown })).toEqual({
      status: "failed",
      error: thrown,
    });
  });
  it("every outcome is a legal move from running and from cancelling", () => {
    const inputs = [
      { result: ok, thrown: null },
      { result: { cancelled: true }, thrown: null },
      { result: { failed_code: "X" }, thrown: null },
      { result: null, thrown: { code: "E", message: "e" } },
    ];
    for (const current of ["running", "cancelling"] as const) {
      for (const stopping of [false, true]) {
        for (const i of inputs) {
          const { status } = decideJobOutcome({ current, stopping, ...i });
          expect(() => moveJob(current, status)).not.toThrow();
        }
      }
    }
  });
});
