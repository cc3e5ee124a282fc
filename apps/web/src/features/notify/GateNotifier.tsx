import { useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useCallback, useEffect, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { type SseMessage, useEventStream } from "../../api/sse.js";
import { gateNotice, waitingRunOf } from "./model/wait-notice.js";
import { registerWorker, sendNotice, turnOff, turnOn, useNotifyState } from "./notify-client.js";

/** The template's (else the flow's) name, through the query cache the runs pages share. */
function useSourceName() {
  const queryClient = useQueryClient();
  return useCallback(
    async (run: { template_id: string | null; flow_id: string }): Promise<string> => {
      try {
        if (run.template_id !== null) {
          const id = run.template_id;
          const tpl = await queryClient.fetchQuery({
            queryKey: ["template", id],
            queryFn: () =>
              unwrap(api.GET("/api/templates/{template_id}", { params: { path: { template_id: id } } })),
            staleTime: 60_000,
          });
          return tpl.name;
        }
        const flow = await queryClient.fetchQuery({
          queryKey: ["flow", run.flow_id],
          queryFn: () =>
            unwrap(api.GET("/api/flows/{flow_id}", { params: { path: { flow_id: run.flow_id } } })),
          staleTime: 60_000,
        });
        return flow.name;
      } catch {
        return run.template_id ?? run.flow_id;
      }
    },
    [queryClient],
  );
}

/**
 * Follows `/api/runs/stream` while notifications are on and hands each new wait to the service worker.
 * The stream starts at its head, so waits that were open before the page loaded are never announced.
 */
function useGateNotices(enabled: boolean): boolean {
  const sourceName = useSourceName();
  useEffect(() => {
    if (enabled) void registerWorker().catch(() => undefined);
  }, [enabled]);
  const onMessage = useCallback(
    (m: SseMessage) => {
      if (m.event !== "change") return;
      const runId = waitingRunOf(m.data);
      if (runId === undefined) return;
      void (async () => {
        const run = await unwrap(api.GET("/api/runs/{run_id}", { params: { path: { run_id: runId } } }));
        const notice = gateNotice(run, await sourceName(run));
        if (notice !== undefined) await sendNotice(notice);
      })().catch(() => undefined);
    },
    [sourceName],
  );
  return useEventStream("/api/runs/stream", onMessage, enabled);
}

/**
 * Gate notifications for the whole console: the one-time prompt (shown until the person answers it, never
 * the browser's own dialog before a click) and, once they are on, the follower that raises them.
 */
export function GateNotifier() {
  const state = useNotifyState();
  const [asking, setAsking] = useState(false);
  const live = useGateNotices(state.enabled);
  // Whether new waits are being followed now (for tests and for a look in the devtools).
  const marker = <span hidden data-testid="gate-notices" data-live={live} />;
  if (!state.shouldAsk) return marker;
  return (
    <section className="notify-prompt" aria-label="Gate notifications" data-testid="notify-prompt">
      <p>
        Be told when a run waits at a gate, even with this tab in the background?{" "}
        <button
          type="button"
          className="primary"
          disabled={asking}
          onClick={() => {
            setAsking(true);
            void turnOn().finally(() => setAsking(false));
          }}
        >
          Turn on notifications
        </button>{" "}
        <button type="button" onClick={turnOff}>
          Not now
        </button>{" "}
        <Link to="/notifications">Notification settings</Link>
      </p>
      {marker}
    </section>
  );
}
