import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef } from "react";
import { api, idempotencyKey, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";

/** A gate's answer, as `POST /api/runs/{run_id}/resume` takes it. */
export type Resume = components["schemas"]["ResumeRequest"];

/** One id per tab: who holds control of a run's page, as the server records it. */
export const HOLDER = `tab_${crypto.randomUUID().slice(0, 8)}`;

/** Takes control of the waiting run's page for this tab. */
export function takeControl(runId: string): Promise<unknown> {
  return unwrap(
    api.POST("/api/runs/{run_id}/live/control", {
      params: { path: { run_id: runId } },
      body: { holder: HOLDER },
    }),
  );
}

/** Hands this tab's control of the page back (its URL and storage are kept for the resume). */
export function handBack(runId: string): Promise<unknown> {
  return unwrap(
    api.POST("/api/runs/{run_id}/live/hand-back", {
      params: { path: { run_id: runId } },
      body: { holder: HOLDER },
    }),
  );
}

/** An answer to send, and what to do first (hand the page back when this tab holds it). */
interface Answer {
  body: Resume;
  before?: (() => Promise<void>) | undefined;
}

/**
 * The one way a run page answers its gate: `before` (hand the page back) then the resume, with an
 * `Idempotency-Key` made once per answer and `expected_version` in the body, so the engine takes it at
 * most once. One answer at a time per page: while one is in flight every answering button is disabled
 * (`isPending`) and a second call is dropped at once (a double click sends one answer, even before React
 * re-renders). Another tab's answer is refused by the engine (the run moved on) and this page's run query
 * is refreshed either way.
 */
export function useResume(runId: string) {
  const queryClient = useQueryClient();
  const inFlight = useRef(false);
  const mutation = useMutation({
    mutationFn: async ({ body, before }: Answer) => {
      await before?.();
      return unwrap(
        api.POST("/api/runs/{run_id}/resume", {
          params: { path: { run_id: runId }, header: { "idempotency-key": idempotencyKey() } },
          body,
        }),
      );
    },
    // Pending until the run is read again: the buttons come back only on the run as it is now.
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ["run", runId] });
      inFlight.current = false;
    },
  });
  const answer = (body: Resume, before?: () => Promise<void>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    mutation.mutate({ body, before });
  };
  return { answer, isPending: mutation.isPending, isError: mutation.isError, error: mutation.error };
}

/** A page's answering of its gate (see {@link useResume}). */
export type GateAnswer = ReturnType<typeof useResume>;
