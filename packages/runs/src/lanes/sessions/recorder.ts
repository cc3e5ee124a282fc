import type { BrowserContext, Frame, Page } from "playwright-core";
import type { FrameScope } from "../../domain/browser-steps.js";
import { RecordedEvent } from "../../domain/recording.js";
import { RECORDER_BINDING, RECORDER_SCRIPT } from "./recorder-script.js";

/** The most events one session keeps; later ones are dropped (a page cannot grow the engine's memory). */
export const MAX_RECORDED_EVENTS = 5_000;

/** A recorder attached to a live context: the events so far, in order. */
export interface Recorder {
  readonly events: RecordedEvent[];
  /** How many reports were refused (malformed, from another page, or over the cap). */
  readonly dropped: number;
}

/** How a replay finds the child frame an event came from: its URL (origin and path) and its name. */
export function frameScopeOf(frame: Frame): FrameScope | undefined {
  if (frame.parentFrame() === null) return undefined;
  const name = frame.name();
  let url: string | undefined;
  try {
    const u = new URL(frame.url());
    if (u.protocol === "http:" || u.protocol === "https:") url = `${u.origin}${u.pathname}`;
  } catch {
    url = undefined;
  }
  if (url === undefined && name === "") return undefined;
  return { ...(url === undefined ? {} : { url }), ...(name === "" ? {} : { name }) };
}

/** The report with its targets' frame set from the frame that sent it (whatever the page claimed). */
function tagFrame(raw: Record<string, unknown>, scope: FrameScope | undefined): Record<string, unknown> {
  const out = { ...raw };
  for (const field of ["target", "submitter"]) {
    const t = out[field];
    if (t === null || typeof t !== "object") continue;
    const { frame: _claimed, ...rest } = t as Record<string, unknown>;
    out[field] = scope === undefined ? rest : { ...rest, frame: scope };
  }
  return out;
}

/**
 * Starts recording in `context` (call before the page navigates): installs the in-page recorder in every
 * page and frame, takes its reports through a binding — only from `page` (a report from a child frame has
 * its target scoped to that frame, see {@link frameScopeOf}), each checked against the
 * {@link RecordedEvent} schema and stamped with the engine's clock — and records the main frame's
 * navigations. `onActivity` hears of each event (a person driving the page keeps its lease alive).
 */
export async function attachRecorder(
  context: BrowserContext,
  page: Page,
  now: () => number,
  onActivity: () => void = () => undefined,
): Promise<Recorder> {
  const events: RecordedEvent[] = [];
  let dropped = 0;
  const add = (raw: unknown) => {
    const parsed = RecordedEvent.safeParse(raw);
    if (!parsed.success || events.length >= MAX_RECORDED_EVENTS) {
      dropped += 1;
      return;
    }
    events.push(parsed.data);
    onActivity();
  };
  await context.exposeBinding(RECORDER_BINDING, (source, json: unknown) => {
    if (source.page !== page || typeof json !== "string" || json.length > 100_000) {
      dropped += 1;
      return;
    }
    try {
      const raw = JSON.parse(json) as Record<string, unknown>;
      add({ ...tagFrame(raw, frameScopeOf(source.frame)), at: now() });
    } catch {
      dropped += 1;
    }
  });
  await context.addInitScript({ content: RECORDER_SCRIPT });
  page.on("framenavigated", (frame) => {
    if (frame !== page.mainFrame()) return;
    const url = frame.url();
    if (url.startsWith("http:") || url.startsWith("https:")) add({ kind: "navigate", url, at: now() });
  });
  return {
    events,
    get dropped() {
      return dropped;
    },
  };
}
