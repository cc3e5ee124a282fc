import type { BrowserContext, Page } from "playwright-core";
import { RecordedEvent } from "../../domain/recording.js";
import { RECORDER_BINDING, RECORDER_SCRIPT } from "./recorder-script.js";

/** The most events one session keeps; later ones are dropped (a page cannot grow the engine's memory). */
export const MAX_RECORDED_EVENTS = 5_000;

/** A recorder attached to a live context: the events so far, in order. */
export interface Recorder {
  readonly events: RecordedEvent[];
  /** How many reports were refused (malformed, from a child frame, or over the cap). */
  readonly dropped: number;
}

/**
 * Starts recording in `context` (call before the page navigates): installs the in-page recorder in every
 * page, takes its reports through a binding — only from the main frame of `page`, each checked against the
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
    if (
      source.page !== page ||
      source.frame !== page.mainFrame() ||
      typeof json !== "string" ||
      json.length > 100_000
    ) {
      dropped += 1;
      return;
    }
    try {
      add({ ...(JSON.parse(json) as object), at: now() });
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
