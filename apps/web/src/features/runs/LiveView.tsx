import { type KeyboardEvent, type MouseEvent, useCallback, useRef, useState, type WheelEvent } from "react";
import { ApiError, api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { type SseMessage, useEventStream } from "../../api/sse.js";
import { type GateAnswer, HOLDER, handBack, takeControl } from "./resume.js";

type LiveInput = components["schemas"]["LiveInput"];
type Run = components["schemas"]["Run"];

interface Frame {
  data: string;
  width: number;
  height: number;
}

/** Keys forwarded as key presses (the rest of a printable key is sent as text). */
const NAMED_KEYS = new Set([
  "Enter",
  "Tab",
  "Backspace",
  "Delete",
  "Escape",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
]);

/** What the live view shows and does: the run, the page's gate answer, and whether this tab holds the page. */
interface LiveViewProps {
  run: Run;
  resume: GateAnswer;
  inControl: boolean;
  setInControl: (held: boolean) => void;
  /** Hands the page back (and forgets this tab's control): what an answer does first while in control. */
  handBackFirst: () => Promise<void>;
}

/**
 * The live page of a run waiting at a gate (frames from `/api/runs/{id}/live`), with "Take control" (then
 * clicks, wheel and keys on the picture go to the page, scaled to its viewport) and, while in control, one
 * primary "Hand back and resume": the page is handed back and the gate answered (an approval gate:
 * approved) in one action, exactly once (see `useResume`). "Hand back" alone stays, as a secondary action;
 * a gate that wants a code or text is answered in the form below, which hands the page back first.
 */
export function LiveView({ run, resume, inControl, setInControl, handBackFirst }: LiveViewProps) {
  const runId = run.id;
  const [frame, setFrame] = useState<Frame | undefined>();
  const [error, setError] = useState<string | undefined>();
  const img = useRef<HTMLImageElement>(null);
  const lastWheel = useRef(0);
  const onMessage = useCallback((m: SseMessage) => {
    if (m.event === "frame") setFrame(JSON.parse(m.data) as Frame);
  }, []);
  const connected = useEventStream(`/api/runs/${encodeURIComponent(runId)}/live`, onMessage);
  const params = { path: { run_id: runId } };

  const attempt = async (call: () => Promise<unknown>) => {
    try {
      await call();
      setError(undefined);
    } catch (err) {
      setError(err instanceof ApiError ? `${err.code}: ${err.message}` : String(err));
      if (err instanceof ApiError && err.code.startsWith("TAKEOVER_")) setInControl(false);
    }
  };
  const send = (input: LiveInput) =>
    attempt(() =>
      unwrap(api.POST("/api/runs/{run_id}/live/input", { params, body: { holder: HOLDER, input } })),
    );

  /** The page coordinates of a pointer event on the picture. */
  const at = (e: MouseEvent | WheelEvent) => {
    const box = img.current?.getBoundingClientRect();
    if (box === undefined || frame === undefined || box.width === 0) return { x: 0, y: 0 };
    const x = ((e.clientX - box.left) * frame.width) / box.width;
    const y = ((e.clientY - box.top) * frame.height) / box.height;
    return { x: Math.max(0, Math.round(x)), y: Math.max(0, Math.round(y)) };
  };
  const onClick = (e: MouseEvent) => {
    if (inControl) void send({ type: "click", ...at(e) });
  };
  const onWheel = (e: WheelEvent) => {
    if (!inControl || Date.now() - lastWheel.current < 100) return;
    lastWheel.current = Date.now();
    void send({ type: "scroll", ...at(e), dx: Math.round(e.deltaX), dy: Math.round(e.deltaY) });
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (!inControl || e.ctrlKey || e.metaKey || e.altKey) return;
    if (NAMED_KEYS.has(e.key)) void send({ type: "key", key: e.key });
    else if ([...e.key].length === 1) void send({ type: "type", text: e.key });
    else return;
    e.preventDefault();
  };

  const approvable = run.wait_context?.allowed_resume_kinds.includes("approval") ?? false;
  const busy = resume.isPending;
  const handBackAndResume = () =>
    resume.answer({ kind: "approval", approved: true, expected_version: run.version }, handBackFirst);

  if (frame === undefined && !connected) return null;
  return (
    <section aria-labelledby="live-title" className="live-view">
      <h2 id="live-title">Live page</h2>
      <p className="muted">
        {inControl
          ? "You are in control: clicks, scrolling and keys on the picture go to the page. When done, hand it back and the run resumes in the same page."
          : "Take control to click, scroll or type in the page (to solve a CAPTCHA, pick an option, log in)."}
      </p>
      <div className="toolbar">
        {inControl ? (
          <>
            {approvable ? (
              <button type="button" className="primary" disabled={busy} onClick={handBackAndResume}>
                {busy ? "Handing back and resuming…" : "Hand back and resume"}
              </button>
            ) : (
              <span className="muted">Answer the gate below: the page is handed back with your answer.</span>
            )}
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void attempt(async () => {
                  await handBack(runId);
                  setInControl(false);
                })
              }
            >
              Hand back
            </button>
          </>
        ) : (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void attempt(async () => {
                await takeControl(runId);
                setInControl(true);
                img.current?.parentElement?.focus();
              })
            }
          >
            Take control
          </button>
        )}
      </div>
      {error === undefined ? null : <p role="alert">{error}</p>}
      <div
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the picture of the page takes keys while in control
        tabIndex={0}
        role="application"
        aria-label="Live page"
        onKeyDown={onKeyDown}
        onWheel={onWheel}
        style={{ outline: inControl ? "2px solid currentColor" : undefined, maxWidth: "100%" }}
      >
        {frame === undefined ? (
          <p className="muted">Waiting for the first frame…</p>
        ) : (
          // biome-ignore lint/a11y/useKeyWithClickEvents: keys are taken by the focusable wrapper
          <img
            ref={img}
            src={`data:image/jpeg;base64,${frame.data}`}
            alt="The run's page now"
            width={frame.width}
            height={frame.height}
            style={{ maxWidth: "100%", height: "auto", cursor: inControl ? "pointer" : "default" }}
            onClick={onClick}
          />
        )}
      </div>
    </section>
  );
}
