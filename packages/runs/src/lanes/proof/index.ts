// The proof lane: campaigns of runs, their facts, reports and reviews.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export {
  createProofEngine,
  type ProofEngine,
  type ProofEngineOptions,
  type ReviewModelOptions,
} from "./proof-engine.js";
export { GENERATED_LABEL } from "./review-model.js";
