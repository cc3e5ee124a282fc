import type { z } from "zod";
import type { Step } from "../steps.js";

/** A step of a reconstructed flow (a flow step as `POST /api/flows` takes it). */
export type PlannedStep = z.input<typeof Step>;

/** How sure reconstruction is of one step, and why not more. */
export interface StepConfidence {
  step_id: string;
  confidence: number;
  reasons: string[];
}

/** A reconstructed flow with what a person should know about it. */
export interface FlowPlan {
  kind: "http" | "browser";
  name: string;
  start_url: string;
  steps: PlannedStep[];
  /** `${secrets.x}` names: secret params a run must be given. */
  secrets: string[];
  /** `${params.x}` names with the value seen in the recording (the template's default). */
  params: Array<{ key: string; default?: string }>;
  confidence: StepConfidence[];
  /** Steps that reach a protected payment provider: the run pauses there for approval. */
  approvals: Array<{ step_id: string; provider_domain: string }>;
  /** Requests left out, and why. */
  dropped: Array<{ url: string; reason: string }>;
}

/** Rounds a confidence to three decimals within 0.05–0.99. */
export function clampConfidence(n: number): number {
  return Math.round(Math.min(0.99, Math.max(0.05, n)) * 1000) / 1000;
}

/** A step id from words: `post_carts_checkout`, made unique with `_2`, `_3`… */
export function uniqueStepId(words: string, taken: Set<string>): string {
  const base =
    words
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 50) || "step";
  let id = /^[a-z]/.test(base) ? base : `s_${base}`;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}
