import type { SimilarFailureMatch } from "./schemas.js";

/** A similar failure as the failure-embeddings search finds it. */
export interface FoundFailure {
  run_id: string;
  similarity: number;
  reason_codes: string[];
  shared_reason_codes: string[];
  failure_text: string;
}

function closeness(similarity: number): string {
  if (similarity >= 0.98) return "reads the same as";
  if (similarity >= 0.85) return "reads very like";
  if (similarity >= 0.6) return "reads somewhat like";
  return "is only loosely like";
}

/** One sentence saying why `found` matched the run: shared reason codes and how close the texts are. */
export function whyMatched(found: FoundFailure): string {
  const shared =
    found.shared_reason_codes.length > 0
      ? `Both runs failed with ${found.shared_reason_codes.join(", ")}`
      : `They share no reason code (it has ${found.reason_codes.join(", ") || "none"})`;
  const text =
    found.failure_text.length > 120 ? `${found.failure_text.slice(0, 117)}...` : found.failure_text;
  return `${shared}, and its failure "${text}" ${closeness(found.similarity)} this run's (cosine ${found.similarity.toFixed(2)}).`;
}

/** Adds `why_matched` to each found failure. */
export function explainMatches(found: readonly FoundFailure[]): SimilarFailureMatch[] {
  return found.map((f) => ({ ...f, why_matched: whyMatched(f) }));
}
