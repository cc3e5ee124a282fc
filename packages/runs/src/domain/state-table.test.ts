import { describe, expect, it } from "vitest";
import { RUN_STATUSES, RUN_TRANSITIONS, type RunStatus, statusesInto, statusesReaching } from "./status.js";
import { crashRun, recoverInFlight } from "./step-recovery.js";
import type { Step } from "./steps.js";
import { DEFAULT_POLICIES } from "./template.js";
import {
  cancelRun,
  claimRun,
  completeStep,
  decideResume,
  expireGate,
  failInterpolation,
  failStep,
  failUnreadableSecrets,
  openGate,
  openProviderGate,
  openStartGate,
  openThreeDsGate,
  type RunState,
  type Transition,
  timeOutRun,
} from "./transitions.js";

const NOW = Date.UTC(2026, 0, 1);

const STEPS: Step[] = [
  { id: "code", type: "otp_gate", prompt: "Code?" },
  {
    id: "pay",
    type: "http",
    method: "POST",
    url: "https://pay.example/pay",
    body: { otp: "${gate.otp_code}" },
    timeout_ms: 1000,
  },
];
const GATE_LAST: Step[] = [{ id: "ok", type: "approval_gate", prompt: "OK?" }];
const CODE_LAST: Step[] = [{ id: "code", type: "otp_gate", prompt: "Code?" }];

function state(status: RunStatus, overrides: Partial<RunState> = {}): RunState {
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
    ...overrides,
  };
}

const running = (overrides: Partial<RunState> = {}) => state("running", overrides);
const at = (steps: Step[], gate: "otp" | "approval") =>
  openGate(running(), steps, { kind: gate, prompt: "?" }, DEFAULT_POLICIES, NOW).state;
const waitingOtp = () => at(STEPS, "otp");
const waitingUser = () =>
  openProviderGate(running({ cursor: 1 }), STEPS, "pay.example", DEFAULT_POLICIES, NOW).state;
const resumed = (s: RunState, steps: Step[], request: Parameters<typeof decideResume>[2]) => {
  const d = decideResume(s, steps, request, NOW);
  return d.ok ? d.transition : undefined;
};
const otpFailed = {
  kind: "failed" as const,
  reason: "step_failed" as const,
  message: "402",
  expectation: true,
};
const afterCode = (attempts: number) =>
  running({ cursor: 1, gate: { otp_code: "000000", approved_steps: [] }, otpAttempts: attempts });

/**
 * Every path by which the engine moves a run, through the pure transition it calls for it (the worker's
 * claim, step runner, gates and sweeps, the resume and cancel verbs). Each returns the move it made.
 */
const PATHS: Record<string, () => Transition | undefined> = {
  "claim a queued run": () => claimRun(state("queued"), false),
  "re-claim a run whose lease expired": () => claimRun(running(), true),
  "complete a step that is not the last": () =>
    completeStep(running(), STEPS, { kind: "completed", vars: {} }, 1),
  "complete the last step": () =>
    completeStep(running({ cursor: 1 }), STEPS, { kind: "completed", vars: {} }, 1),
  "open a template's code gate before step 0": () =>
    openStartGate(state("queued"), STEPS.slice(1), DEFAULT_POLICIES, NOW),
  "open an otp gate": () => openGate(running(), STEPS, { kind: "otp", prompt: "?" }, DEFAULT_POLICIES, NOW),
  "open an approval gate": () =>
    openGate(running(), GATE_LAST, { kind: "approval", prompt: "?" }, DEFAULT_POLICIES, NOW),
  "pause at a protected provider": () =>
    openProviderGate(running({ cursor: 1 }), STEPS, "pay.example", DEFAULT_POLICIES, NOW),
  "pause at a 3-D Secure challenge": () =>
    openThreeDsGate(
      running(),
      STEPS,
      "pay",
      { signal: "iframe", url: "https://acs.example/" },
      DEFAULT_POLICIES,
      NOW,
    ),
  "pause a re-claimed run whose step is in doubt": () =>
    recoverInFlight(claimRun(running({ cursor: 1 }), true), STEPS, "pay", DEFAULT_POLICIES, NOW),
  "loop a refused code back to its gate": () =>
    failStep(afterCode(0), STEPS, otpFailed, DEFAULT_POLICIES, 1, NOW),
  "fail a step": () => failStep(afterCode(2), STEPS, otpFailed, DEFAULT_POLICIES, 1, NOW),
  "fail an interpolation": () => failInterpolation(running(), "pay", "${vars.x}"),
  "fail on unreadable secrets": () => failUnreadableSecrets(running(), "pay", ["k"]),
  "crash a running run": () => crashRun(running(), STEPS, "internal_error", "boom"),
  "crash a run at its claim": () => crashRun(state("queued"), STEPS, "nesting_too_deep", "deep"),
  "resume an otp gate": () => resumed(waitingOtp(), STEPS, { kind: "otp", otp_code: "1" }),
  "approve a gate": () => resumed(waitingUser(), STEPS, { kind: "approval", approved: true }),
  "resume an otp gate that was the last step": () =>
    resumed(at(CODE_LAST, "otp"), CODE_LAST, { kind: "otp", otp_code: "1" }),
  "approve a gate that was the last step": () =>
    resumed(at(GATE_LAST, "approval"), GATE_LAST, { kind: "approval", approved: true }),
  "reject an approval": () => resumed(waitingUser(), STEPS, { kind: "approval", approved: false }),
  "expire an otp gate": () => expireGate(waitingOtp(), NOW + 10_000_000),
  "expire a person's gate": () => expireGate(waitingUser(), NOW + 10_000_000),
  "cancel a queued run": () => cancelRun(state("queued")),
  "cancel a running run": () => cancelRun(running()),
  "cancel a run waiting for a code": () => cancelRun(waitingOtp()),
  "cancel a run waiting for a person": () => cancelRun(waitingUser()),
  "time out a queued run": () => timeOutRun(state("queued")),
  "time out a running run": () => timeOutRun(running()),
};

/** The moves the paths make, as `from -> to`. */
function movesMade(): Map<string, string[]> {
  const made = new Map<string, string[]>();
  for (const [name, path] of Object.entries(PATHS)) {
    const t = path();
    expect(t, name).toBeDefined();
    if (t === undefined) continue;
    const changed = t.events.find((e) => e.type === "status_changed")?.data;
    const from = (changed?.from as string | undefined) ?? t.state.status;
    const edge = `${from} -> ${t.state.status}`;
    made.set(edge, [...(made.get(edge) ?? []), name]);
  }
  return made;
}

const tableEdges = RUN_STATUSES.flatMap((from) =>
  (RUN_TRANSITIONS[from] as readonly RunStatus[]).map((to) => `${from} -> ${to}`),
);

describe("the run state table, both ways", () => {
  it("holds every move the run's transitions make", () => {
    expect([...movesMade().keys()].filter((edge) => !tableEdges.includes(edge))).toEqual([]);
  });

  it("holds no edge the run's transitions never make (a widened table fails here)", () => {
    const made = movesMade();
    expect(tableEdges.filter((edge) => !made.has(edge))).toEqual([]);
  });

  it("answers, read backwards, the statuses a write into each status may find the row in", () => {
    expect(statusesInto("running")).toEqual(["queued", "running"]);
    expect(statusesInto("queued")).toEqual(["waiting_otp", "waiting_user"]);
    expect(statusesInto("success")).toEqual(["running", "waiting_otp", "waiting_user"]);
    for (const to of RUN_STATUSES) {
      for (const from of statusesInto(to)) expect(tableEdges).toContain(`${from} -> ${to}`);
    }
    // Through one or more moves: every status but the terminal ones, which reach nothing.
    for (const to of RUN_STATUSES) {
      expect(statusesReaching(to)).toEqual(["queued", "running", "waiting_otp", "waiting_user"]);
    }
  });
});
