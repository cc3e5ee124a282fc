import type { Tx } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import type { CDPSession } from "playwright-core";
import { isWaiting } from "../domain/status.js";
import { REDACTED } from "../domain/transitions.js";
import { TakeoverError } from "../kernel/errors.js";
import { runs } from "../store/schema.js";
import { dispatchInput, type LiveFrame, type LiveInput, Screencast } from "./browser/live-view.js";
import type { Held } from "./browser-runtime.js";
import { appendEvents, loadRun, readRun } from "./persist.js";
import type { RunsResources } from "./resources.js";
import type { RunRow } from "./views.js";

export type { LiveFrame, LiveInput } from "./browser/live-view.js";

/** How long after a click or key press the requests it sends are still judged as its own (ms). */
const INPUT_REQUEST_MS = 150;

/** A takeover event to record. */
interface TakeoverEvent {
  type: "takeover_started" | "takeover_input" | "takeover_blocked" | "takeover_ended";
  data: Record<string, unknown>;
}

/** Who holds a run's page now, and since when. */
export interface TakeoverControl {
  by: string;
  since: number;
}

/** What a person sees of a waiting run's page: whether there is one here, and who is in control. */
export interface LiveStatus {
  live: boolean;
  in_control: TakeoverControl | null;
}

/** An open live view: its viewport now, and how to close it. */
export interface LiveView {
  close(): void;
  /** Aborts when the view ends on its own (the page closed: the run resumed elsewhere, ended, or crashed). */
  signal: AbortSignal;
}

/** What an input is recorded as: where and what, never the text typed. */
function describe(input: LiveInput): Record<string, unknown> {
  switch (input.type) {
    case "click":
      return { input: "click", x: input.x, y: input.y, button: input.button ?? "left" };
    case "scroll":
      return { input: "scroll", x: input.x, y: input.y, dx: input.dx, dy: input.dy };
    case "key":
      // A named key (Enter, Tab, ArrowDown) says nothing typed; a character would.
      return { input: "key", key: [...input.key].length > 1 ? input.key : REDACTED };
    case "type":
      return { input: "type", text: REDACTED, length: [...input.text].length };
  }
}

/**
 * Taking over the page of a run paused at a gate: a person watches it (a CDP screencast), takes control,
 * clicks, scrolls and types into it (CDP input events), and hands it back; the run resumes in the same
 * page (cookies, storage, URL). Only while the run waits at a gate and this process holds its page (kept
 * open at the gate, or reopened from the state the gate saved). Every action is a run event
 * (`takeover_started`, `takeover_input` — typed text redacted —, `takeover_blocked`, `takeover_ended`);
 * the page's outbound guard still applies: a request to a protected provider does not leave.
 */
export function createTakeover(r: RunsResources) {
  const control = new Map<string, TakeoverControl>();
  const casts = new Map<string, Screencast>();
  const inputSessions = new WeakMap<Held, Promise<CDPSession>>();

  /** The run, which must be waiting at a gate. @throws RUN_NOT_FOUND, TAKEOVER_NOT_WAITING */
  async function waiting(runId: string): Promise<RunRow> {
    const row = await readRun(r.db, runId);
    if (!isWaiting(row.status)) {
      control.delete(runId);
      throw new TakeoverError("TAKEOVER_NOT_WAITING", `The run is ${row.status}, not waiting at a gate.`, {
        status: row.status,
      });
    }
    return row;
  }

  /** The waiting run's page, kept here or reopened from its gate's saved state. @throws TAKEOVER_NO_BROWSER */
  async function pageOf(row: RunRow): Promise<Held> {
    const held =
      r.browserRuntime.live(row.id) ??
      (await r.browserRuntime.reopen(row, AbortSignal.timeout(30_000)).catch(() => undefined));
    if (held === undefined)
      throw new TakeoverError(
        "TAKEOVER_NO_BROWSER",
        "The run has no browser page to take over (no browser step ran before its gate, or its page is gone).",
      );
    return held;
  }

  /** Appends events to a run that still waits (the event sequence moves under compare-and-set). */
  async function record(runId: string, drafts: TakeoverEvent[], also?: (tx: Tx) => Promise<void>) {
    await r.write(async (tx) => {
      const row = await loadRun(tx, runId);
      if (!isWaiting(row.status))
        throw new TakeoverError("TAKEOVER_NOT_WAITING", `The run is ${row.status}, not waiting at a gate.`);
      const at = r.now();
      const moved = await tx
        .update(runs)
        .set({ eventSeq: row.eventSeq + drafts.length, updatedAt: at })
        .where(and(eq(runs.id, runId), eq(runs.eventSeq, row.eventSeq)));
      if (moved.rowsAffected === 0) throw new Error("the run's events moved during the write");
      await appendEvents(r, tx, runId, row.eventSeq, drafts, at);
      await also?.(tx);
    });
  }

  /** Records what the outbound guard stopped of the requests an input sent (judged in the background). */
  async function watchGuard(held: Held, runId: string, by: string): Promise<void> {
    const guard = held.lease.outbound;
    await guard.settled(INPUT_REQUEST_MS);
    const provider = guard.blockedProvider;
    const denied = guard.denied;
    Object.assign(guard, { blockedProvider: undefined, denied: undefined });
    const blocked =
      provider !== undefined
        ? { provider_domain: provider }
        : denied !== undefined
          ? { host: denied.host, rule: denied.rule }
          : undefined;
    if (blocked === undefined) return;
    await record(runId, [{ type: "takeover_blocked", data: { by, ...blocked } }]).catch((err: unknown) =>
      r.observer.error?.(`could not record a blocked takeover request of run ${runId}`, err),
    );
  }

  /** The person in control, or TAKEOVER_NOT_IN_CONTROL / TAKEOVER_IN_CONTROL_ELSEWHERE. */
  function inControl(runId: string, by: string): TakeoverControl {
    const current = control.get(runId);
    if (current === undefined)
      throw new TakeoverError("TAKEOVER_NOT_IN_CONTROL", "Take control of the page first.");
    if (current.by !== by)
      throw new TakeoverError("TAKEOVER_IN_CONTROL_ELSEWHERE", `${current.by} is in control of the page.`, {
        by: current.by,
      });
    return current;
  }

  return {
    /** Whether this process holds the waiting run's page, and who is in control. @throws RUN_NOT_FOUND */
    async liveStatus(runId: string): Promise<LiveStatus> {
      const row = await readRun(r.db, runId);
      const live = isWaiting(row.status) && r.browserRuntime.live(runId) !== undefined;
      return { live, in_control: live ? (control.get(runId) ?? null) : null };
    },

    /**
     * Streams the waiting run's page as JPEG frames (a few a second; the latest at once) to `onFrame`.
     * @throws RUN_NOT_FOUND, TAKEOVER_NOT_WAITING, TAKEOVER_NO_BROWSER
     */
    async openLiveView(runId: string, onFrame: (frame: LiveFrame) => void): Promise<LiveView> {
      const held = await pageOf(await waiting(runId));
      let cast = casts.get(runId);
      if (cast === undefined || cast.ended) {
        // The last one's stop goes first: a new screencast on the same session must not be stopped by it.
        await cast?.stop();
        cast = casts.get(runId);
      }
      if (cast === undefined || cast.ended) {
        cast = new Screencast(held.lease.page, undefined, held.cdp);
        casts.set(runId, cast);
      }
      const ended = new AbortController();
      const unsubscribe = cast.subscribe(onFrame);
      const close = () => {
        unsubscribe();
        held.lease.signal.removeEventListener("abort", close);
        if (!ended.signal.aborted) ended.abort();
      };
      held.lease.signal.addEventListener("abort", close, { once: true });
      return { close, signal: ended.signal };
    },

    /**
     * Takes control of the waiting run's page for `by`: the page is no longer lent to other acquires.
     * @throws RUN_NOT_FOUND, TAKEOVER_NOT_WAITING, TAKEOVER_NO_BROWSER, TAKEOVER_IN_CONTROL_ELSEWHERE
     */
    async takeControl(runId: string, by: string): Promise<TakeoverControl> {
      const held = await pageOf(await waiting(runId));
      const current = control.get(runId);
      if (current !== undefined && current.by !== by)
        throw new TakeoverError("TAKEOVER_IN_CONTROL_ELSEWHERE", `${current.by} is in control of the page.`, {
          by: current.by,
        });
      if (current !== undefined) return current;
      held.lease.adopt();
      const taken = { by, since: r.now() };
      await record(runId, [{ type: "takeover_started", data: { by, url: held.lease.page.url() } }]);
      control.set(runId, taken);
      return taken;
    },

    /**
     * Sends one input to the page (recorded first as `takeover_input`: what and where, typed text redacted).
     * A click or key press that sends a request the outbound guard stops (a protected payment provider, a
     * denied host) is recorded as `takeover_blocked` a moment later; the request never leaves.
     * @throws TAKEOVER_NOT_IN_CONTROL, TAKEOVER_IN_CONTROL_ELSEWHERE, TAKEOVER_NOT_WAITING, TAKEOVER_NO_BROWSER
     */
    async sendInput(runId: string, by: string, input: LiveInput): Promise<void> {
      const row = await waiting(runId);
      inControl(runId, by);
      const held = await pageOf(row);
      await record(runId, [{ type: "takeover_input", data: { by, ...describe(input) } }]);
      let cdp = inputSessions.get(held);
      if (cdp === undefined) {
        cdp = held.lease.context.newCDPSession(held.lease.page);
        inputSessions.set(held, cdp);
      }
      held.lease.touch();
      await dispatchInput(held.lease.page, await cdp, input);
      if (input.type === "click" || input.type === "key") void watchGuard(held, runId, by);
    },

    /**
     * Hands the page back: its URL and storage state are saved for the resume (as the gate saved them), the
     * page is kept open for it, and `takeover_ended` is recorded. The gate is answered as before. Exactly
     * once: of two hand-backs at once, the second is refused (TAKEOVER_NOT_IN_CONTROL).
     * @throws TAKEOVER_NOT_IN_CONTROL, TAKEOVER_IN_CONTROL_ELSEWHERE, TAKEOVER_NOT_WAITING, TAKEOVER_NO_BROWSER
     */
    async handBack(runId: string, by: string): Promise<void> {
      const row = await waiting(runId);
      const taken = inControl(runId, by);
      // Claimed in the same turn as the check: a second hand-back (a double click, a retry) racing this one
      // finds no control and is refused, so the page is handed back and `takeover_ended` recorded once.
      control.delete(runId);
      try {
        const held = await pageOf(row);
        const url = held.lease.page.url();
        if (/^https?:/i.test(url)) held.guard.resumeUrl = url;
        const snapshot = await r.browserRuntime.capture(runId);
        const ended = { type: "takeover_ended" as const, data: { by, url, held_ms: r.now() - taken.since } };
        await record(runId, [ended], async (tx) => {
          if (snapshot !== undefined) await r.browserRuntime.saveState(tx, runId, snapshot, r.now());
        });
        held.lease.lend();
      } catch (err) {
        // Not handed back: the person keeps control (unless someone took it meanwhile, or the run moved on).
        if (!control.has(runId) && !(err instanceof TakeoverError && err.code === "TAKEOVER_NOT_WAITING"))
          control.set(runId, taken);
        throw err;
      }
    },

    /** Stops every screencast (the engine stops). */
    async close(): Promise<void> {
      control.clear();
      await Promise.all([...casts.values()].map((c) => c.stop()));
      casts.clear();
    },
  };
}

/** The takeover API of a run core. */
export type Takeover = ReturnType<typeof createTakeover>;
