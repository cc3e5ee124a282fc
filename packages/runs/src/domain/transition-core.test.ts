import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "../kernel/errors.js";
import { canTransition, RUN_STATUSES, type RunStatus } from "./status.js";
import { moveTo, type RunState } from "./transition-core.js";

function state(status: RunStatus): RunState {
  return {
    status,
    cursor: 0,
    vars: {},
    gate: { approved_steps: [] },
    wait: null,
    waitExpiresAt: null,
    reason: null,
    error: null,
    otpAttempts: 0,
    version: 3,
  };
}

describe("the run state machine's moveTo", () => {
  for (const from of RUN_STATUSES) {
    for (const to of RUN_STATUSES) {
      if (canTransition(from, to)) {
        it(`moves ${from} → ${to}, bumping the version and recording a change of status`, () => {
          const t = moveTo(state(from), state(to), []);
          expect(t.state).toMatchObject({ status: to, version: 4 });
          expect(t.events).toEqual(from === to ? [] : [{ type: "status_changed", data: { from, to } }]);
        });
      } else {
        it(`refuses ${from} → ${to} with the typed ILLEGAL_TRANSITION error`, () => {
          expect(() => moveTo(state(from), state(to), [])).toThrow(IllegalTransitionError);
          try {
            moveTo(state(from), state(to), []);
          } catch (err) {
            expect((err as IllegalTransitionError).code).toBe("ILLEGAL_TRANSITION");
          }
        });
      }
    }
  }
});
