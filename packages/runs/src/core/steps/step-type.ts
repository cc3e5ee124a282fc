import type { Page } from "playwright-core";
import type { z } from "zod";
import type { GateRequest, InputSchema, StepOutcome } from "../../domain/steps.js";

export type { GateRequest, InputSchema, StepOutcome };

/** What an executing step may use. */
export interface StepContext {
  runId: string;
  stepId: string;
  /** Aborted when the run is cancelled, times out, or its worker loses the lease. */
  signal: AbortSignal;
  /**
   * Which attempt at this step this is, 1 for the first: a step sent again after a wrong one-time code is
   * a new attempt; a crash-retry or an approved re-send of an in-doubt step is the same attempt. Part of
   * the `http` step's `Idempotency-Key` (`<run_id>:<step_id>:<attempt>`).
   */
  attempt: number;
  /** How many times to retry a failed request (the template's `retries`). */
  retries: number;
  fetch: typeof globalThis.fetch;
  /** The largest response body a step reads (bytes); larger fails the step with `RESPONSE_TOO_LARGE`. */
  maxResponseBytes?: number | undefined;
  /** When this step first started in this run (epoch ms) — earlier than now when a worker died mid-step. */
  startedAt: number;
  /** The engine's clock (epoch ms). */
  now(): number;
  /** The run's page, for browser steps (`StepType.browser`). */
  browser?: BrowserStepContext | undefined;
}

/** What a browser step may use: the run's page and the protected-provider policy. */
export interface BrowserStepContext {
  page: Page;
  /** Whether a person approved this step acting on a protected payment provider. */
  approved: boolean;
  /** Whether the step puts a secret or a one-time code on the page (its field is masked in screenshots). */
  holdsSecret: boolean;
  /** The protected payment provider `url` is on, if any. */
  protectedDomainOf(url: string): string | undefined;
  /** Stores a named screenshot of the page as the step's evidence. */
  screenshot(name: string): Promise<void>;
}

/**
 * One step type: its schema (with `id` and a literal `type`), how it behaves, and how it executes an
 * already-interpolated step. Add a step type by writing one module and listing it in the registry.
 */
export interface StepType<T extends { id: string; type: string }> {
  type: T["type"];
  schema: z.ZodType<T>;
  /**
   * `pure`: instant, no I/O, safe to repeat (consecutive pure steps commit together); `gate`: instant,
   * pauses for a person; `external`: talks to the outside world; `timer`: takes time without I/O.
   * `external` and `timer` steps are marked started in their own transaction and committed alone.
   */
  effect: "pure" | "gate" | "external" | "timer";
  /** The URLs the step would contact, for the protected-provider check. */
  targets?(step: T): string[];
  /**
   * Whether executing the step twice is harmless. An `external` step that is not idempotent is marked in
   * flight before it runs, and a run re-claimed with the mark set pauses instead of repeating it.
   */
  idempotent?(step: T): boolean;
  /** A browser step: runs in the run's page, with before/after screenshots and timing as evidence. */
  browser?: boolean;
  execute(step: T, ctx: StepContext): Promise<StepOutcome>;
}
