/**
 * The system notification of a run that starts waiting at a gate, the pure half: which change frames of
 * `/api/runs/stream` announce a wait, and the notice (dedupe key, title, body, link) of a waiting run.
 */

/** The run statuses that wait for a person (a one-time code or an approval). */
export const WAITING_STATUSES = ["waiting_otp", "waiting_user"] as const;

/** The part of a `RunChange` frame this reads. */
export interface RunChangeFrame {
  run_id: string;
  type: string;
  status: string;
  from: string | null;
}

/** The part of a run this reads. */
export interface WaitingRunLike {
  id: string;
  status: string;
  wait_context: { at_step_id: string; prompt: string; opened_at: string } | null;
}

/** What a notification says and where it leads; `key` names one wait of one run, to notify it once. */
export interface GateNotice {
  key: string;
  title: string;
  body: string;
  url: string;
}

function isWaiting(status: string): boolean {
  return (WAITING_STATUSES as readonly string[]).includes(status);
}

/**
 * The run id of a change that may open a wait (a move into a waiting status, or to another gate while
 * waiting), or undefined. Parses the frame's JSON; anything else answers undefined.
 */
export function waitingRunOf(data: string): string | undefined {
  let change: unknown;
  try {
    change = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (change === null || typeof change !== "object") return undefined;
  const c = change as Partial<RunChangeFrame>;
  if (typeof c.run_id !== "string" || typeof c.status !== "string") return undefined;
  return isWaiting(c.status) ? c.run_id : undefined;
}

/** The longest body shown: system notifications cut long text anyway. */
const MAX_BODY = 300;

/**
 * The notice of `run` while it waits, or undefined when it no longer does (answered in the meantime).
 * `sourceName` is the template's or flow's name. The key is the run, the gate step and when the wait
 * opened: the same wait seen by two tabs (or twice by one) is one notice; a second gate is another.
 */
export function gateNotice(run: WaitingRunLike, sourceName: string): GateNotice | undefined {
  const wait = run.wait_context;
  if (!isWaiting(run.status) || wait === null) return undefined;
  const what = run.status === "waiting_otp" ? "needs a one-time code" : "waits for your approval";
  const prompt = wait.prompt.trim() === "" ? "A gate waits for you." : wait.prompt;
  return {
    key: `${run.id}:${wait.at_step_id}:${wait.opened_at}`,
    title: `${sourceName} ${what}`,
    body: prompt.length > MAX_BODY ? `${prompt.slice(0, MAX_BODY - 1)}…` : prompt,
    url: `/runs/${encodeURIComponent(run.id)}`,
  };
}
