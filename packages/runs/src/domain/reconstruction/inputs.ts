import type { RecordedEvent } from "../recording.js";
import type { HarExchange } from "./har.js";
import type { HtmlSummary } from "./html.js";

/** How boldly reconstruction turns what it saw into replayable steps. */
export const EXTRACTOR_STRATEGIES = ["strict", "balanced", "aggressive"] as const;
/** An extractor strategy. */
export type ExtractorStrategy = (typeof EXTRACTOR_STRATEGIES)[number];

/** Below this confidence a step is listed in `unresolved_segments`. */
export const UNRESOLVED_BELOW = 0.78;

/** The artifacts the pure planners work on, loaded and parsed by the engine. */
export interface ReconstructionInputs {
  /** The HAR's requests in order. */
  har?: HarExchange[];
  /** The page given as HTML. */
  html?: HtmlSummary;
  /** A recording session's events. */
  events?: RecordedEvent[];
  /** Where the flow starts (the session's start URL, or given). */
  startUrl?: string;
  /** The session the artifacts came from. */
  sessionId?: string;
}

/** What the planners are told besides the artifacts. */
export interface PlanContext {
  strategy: ExtractorStrategy;
  protectedDomains: readonly string[];
  /** The fingerprint a session HAR gives redacted credentials (`[redacted:<fingerprint>]`). */
  fingerprint?: (value: string) => string;
}
