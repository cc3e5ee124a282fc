import type { FrameScope } from "./browser-steps.js";
import type { RecordedEvent, RecordedTarget, SelectorCandidate } from "./recording.js";

/*
 * The draft builder: a session's recorded events → a flow draft of browser steps. Pure (no I/O, no clock):
 * the same events always give the same draft.
 */

/** How long after a click or submission a navigation still counts as its consequence (ms). */
export const CONSEQUENCE_WINDOW_MS = 5_000;

/** A recorded target as a browser step's `target`. */
export interface DraftTarget {
  selectors: SelectorCandidate[];
  /** The child frame the element was recorded in. */
  frame?: FrameScope;
}

/** One step of a draft: the browser steps `navigate`, `click`, `type`, `select`. */
export type DraftStep =
  | { id: string; type: "navigate"; url: string }
  | { id: string; type: "click"; target: DraftTarget }
  | { id: string; type: "type"; target: DraftTarget; value: string }
  | { id: string; type: "select"; target: DraftTarget; option: string };

/** A flow draft: steps ready for `POST /api/flows`, and the secrets a run of it needs. */
export interface FlowDraftBody {
  name: string;
  start_url: string;
  steps: DraftStep[];
  /** Names the steps reference as `${secrets.name}` (pass them as secret params of the run). */
  secrets: string[];
  /** How many recorded events the draft was built from. */
  event_count: number;
}

/** The builder's running state: the steps so far, the last action's time, the field being typed into. */
interface DraftState {
  steps: DraftStep[];
  secrets: Set<string>;
  lastActionAt: number | undefined;
  typingKey: string | undefined;
  counter: number;
}

function targetOf(t: RecordedTarget): DraftTarget {
  const selectors = t.selectors.map((s) => ({ ...s }));
  return t.frame === undefined ? { selectors } : { selectors, frame: { ...t.frame } };
}

/** The field a keystroke went to: its key within its frame. */
function fieldKey(t: RecordedTarget): string {
  return JSON.stringify([t.frame?.url ?? null, t.frame?.name ?? null, t.key]);
}

/** A draft step before it is given an id. */
type StepBody = DraftStep extends infer S ? (S extends DraftStep ? Omit<S, "id"> : never) : never;

function push(state: DraftState, step: StepBody, kind: string): void {
  state.counter += 1;
  state.steps.push({ ...step, id: `${kind}_${state.counter}` } as DraftStep);
}

function onNavigate(state: DraftState, url: string, at: number): void {
  const last = state.steps.at(-1);
  const consequence = state.lastActionAt !== undefined && at - state.lastActionAt <= CONSEQUENCE_WINDOW_MS;
  state.lastActionAt = undefined;
  state.typingKey = undefined;
  if (consequence) return;
  if (last?.type === "navigate" && last.url === url) return;
  push(state, { type: "navigate", url }, "navigate");
}

function onType(state: DraftState, e: Extract<RecordedEvent, { kind: "type" }>): void {
  if (e.secret !== undefined) state.secrets.add(e.secret.name);
  const last = state.steps.at(-1);
  const key = fieldKey(e.target);
  if (state.typingKey === key && last?.type === "type") {
    last.value = e.value;
    return;
  }
  state.typingKey = key;
  push(state, { type: "type", target: targetOf(e.target), value: e.value }, "type");
}

function onEvent(state: DraftState, e: RecordedEvent): void {
  switch (e.kind) {
    case "navigate":
      onNavigate(state, e.url, e.at);
      return;
    case "type":
      onType(state, e);
      return;
    case "click":
      // A click into a text field or a <select> only focuses it: the typing or choice is the step.
      if (e.target.editable === true || e.target.tag === "select" || e.target.tag === "option") return;
      state.typingKey = undefined;
      state.lastActionAt = e.at;
      push(state, { type: "click", target: targetOf(e.target) }, "click");
      return;
    case "select":
      state.typingKey = undefined;
      push(state, { type: "select", target: targetOf(e.target), option: e.option }, "select");
      return;
    case "submit":
      state.typingKey = undefined;
      state.lastActionAt = e.at;
      // Submitted by a click already recorded, or (Enter in a field) by the form's submit button.
      if (e.by_click || e.submitter === undefined) return;
      push(state, { type: "click", target: targetOf(e.submitter) }, "click");
      return;
  }
}

/** The host of `url` for a draft's name, or the URL itself when it does not parse. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * Builds a flow draft from a session's events: a `navigate` to the start URL, then one step per action —
 * keystrokes into one field merged into one `type` (its last value; secret fields keep their
 * `${secrets.…}` reference), clicks that only focus a field dropped, a form submitted with Enter replayed
 * as a click on its submit button, and navigations that follow a click or submission within
 * {@link CONSEQUENCE_WINDOW_MS} left to that action (other navigations become `navigate` steps).
 */
export function buildFlowDraft(startUrl: string, events: readonly RecordedEvent[]): FlowDraftBody {
  const state: DraftState = {
    steps: [],
    secrets: new Set(),
    lastActionAt: undefined,
    typingKey: undefined,
    counter: 0,
  };
  push(state, { type: "navigate", url: startUrl }, "navigate");
  for (const e of events) onEvent(state, e);
  return {
    name: `Recorded on ${hostOf(startUrl)}`,
    start_url: startUrl,
    steps: state.steps,
    secrets: [...state.secrets].sort(),
    event_count: events.length,
  };
}
