import { type Clock, type IdGenerator, randomIds } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { parseProtectedDomains } from "../../domain/providers.js";
import {
  createOutboundPolicy,
  type OutboundPolicy,
  type OutboundPolicyOptions,
} from "../../kernel/outbound.js";
import type { SimilarFailure } from "../embeddings/index.js";
import type { ReviewModelOptions } from "./review-model.js";

/** What {@link createProofEngine} is built from. */
export interface ProofEngineOptions {
  /** The database the run engine writes (migrated by the runs `migrate`). */
  db: LibSQLDatabase;
  clock?: Clock;
  ids?: IdGenerator;
  /** The run engine's similar-failure search (`RunsEngine.similarFailures`). */
  similarFailures: (runId: string, limit: number) => Promise<SimilarFailure[]>;
  /** Protected payment provider domains (the run engine's); default: the built-in list. */
  protectedDomains?: readonly string[];
  /** The run engine's outbound policy settings, to judge feasibility targets by. */
  outbound?: OutboundPolicyOptions;
  /** Whether a browser is available to run browser steps (default: false). */
  browserAvailable?: () => boolean;
  /** An OpenAI-compatible chat model that adds a generated narrative to reviews; none = no narrative. */
  reviewModel?: ReviewModelOptions | undefined;
}

/** What every proof verb works over. */
export interface ProofResources {
  db: LibSQLDatabase;
  now(): number;
  newId: IdGenerator;
  similarFailures: ProofEngineOptions["similarFailures"];
  protectedDomains: readonly string[];
  outbound: OutboundPolicy;
  browserAvailable: () => boolean;
  reviewModel: ReviewModelOptions | undefined;
}

/** Builds the proof resources from the options. */
export function createProofResources(options: ProofEngineOptions): ProofResources {
  const clock = options.clock;
  return {
    db: options.db,
    now: clock === undefined ? () => Date.now() : () => clock.now(),
    newId: options.ids ?? randomIds,
    similarFailures: options.similarFailures,
    protectedDomains: options.protectedDomains ?? parseProtectedDomains(undefined),
    outbound: createOutboundPolicy(options.outbound),
    browserAvailable: options.browserAvailable ?? (() => false),
    reviewModel: options.reviewModel,
  };
}
