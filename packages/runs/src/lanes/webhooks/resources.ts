import {
  type Clock,
  type IdGenerator,
  randomIds,
  runTransaction,
  type Tx,
  type WriteOptions,
} from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { DEFAULT_PROTECTED_PROVIDER_DOMAINS } from "../../domain/providers.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../domain/webhooks.js";
import {
  createOutboundPolicy,
  type OutboundPolicy,
  type OutboundPolicyOptions,
} from "../../kernel/outbound.js";
import { createSecretBox, type SecretBox } from "../../kernel/secret-box.js";
import type { WebhookFeed } from "./feeds.js";

/** What {@link createWebhooksEngine} is built from. */
export interface WebhooksEngineOptions {
  db: LibSQLDatabase;
  /** The runs secrets key (see `loadSecretsKey`): webhook secrets are sealed with it. */
  secretsKey: Buffer;
  clock?: Clock;
  ids?: IdGenerator;
  /** Where deliveries may go: the runs outbound policy (`VETTED_HTTP_ALLOW`, `VETTED_HTTP_DENY`). */
  outbound?: OutboundPolicyOptions;
  /**
   * Payment providers no webhook is ever delivered to (by name, IP literal or resolved address); default
   * {@link DEFAULT_PROTECTED_PROVIDER_DOMAINS}. The server passes `VETTED_PROTECTED_PROVIDER_DOMAINS`.
   */
  protectedDomains?: readonly string[];
  fetch?: typeof globalThis.fetch;
  /** How often the dispatcher looks for due deliveries and relays feeds (default 1 000 ms). */
  pollMs?: number;
  /** How long one attempt may take before it counts as failed (default 10 000 ms). */
  timeoutMs?: number;
  /** How long a claimed delivery stays leased to its dispatcher (default `timeoutMs` + 30 s). */
  leaseMs?: number;
  /** How many deliveries this process sends at once (default 4). */
  concurrency?: number;
  /** The retry schedule (default 10 s doubling to 1 h, for 24 h). */
  retry?: Partial<RetryPolicy>;
  /** Jitter's source, in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Event logs of other engines relayed into the outbox (e.g. fileorg's finished jobs). */
  feeds?: readonly WebhookFeed[];
  /** Unexpected errors of background work (logged by the host, never thrown). */
  onError?: (message: string, err: unknown) => void;
  /** Told after each attempt (the server counts them in metrics). */
  onAttempt?: (outcome: "delivered" | "retry" | "failed") => void;
}

/** What every concern of the webhooks engine works over. */
export interface HookResources {
  db: LibSQLDatabase;
  now(): number;
  newId: IdGenerator;
  box: SecretBox;
  policy: OutboundPolicy;
  protectedDomains: readonly string[];
  fetch: typeof globalThis.fetch;
  pollMs: number;
  timeoutMs: number;
  leaseMs: number;
  concurrency: number;
  retry: RetryPolicy;
  random(): number;
  feeds: readonly WebhookFeed[];
  onError(message: string, err: unknown): void;
  onAttempt(outcome: "delivered" | "retry" | "failed"): void;
  /** This process's dispatcher; each claim's lease token starts with it. */
  workerId: string;
  write<T>(fn: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
}

/** The secret box context of a webhook's secret: a sealed secret copied to another webhook does not open. */
export function secretContext(webhookId: string): string {
  return `webhook:${webhookId}`;
}

/** Builds the shared resources of the webhooks engine from its options. */
export function createHookResources(options: WebhooksEngineOptions): HookResources {
  const { db } = options;
  const clock = options.clock;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const newId = options.ids ?? randomIds;
  return {
    db,
    now: clock === undefined ? () => Date.now() : () => clock.now(),
    newId,
    box: createSecretBox(options.secretsKey),
    policy: createOutboundPolicy(options.outbound),
    protectedDomains: options.protectedDomains ?? DEFAULT_PROTECTED_PROVIDER_DOMAINS,
    fetch: options.fetch ?? globalThis.fetch,
    pollMs: options.pollMs ?? 1000,
    timeoutMs,
    leaseMs: options.leaseMs ?? timeoutMs + 30_000,
    concurrency: options.concurrency ?? 4,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    random: options.random ?? Math.random,
    feeds: options.feeds ?? [],
    onError: options.onError ?? (() => undefined),
    onAttempt: options.onAttempt ?? (() => undefined),
    workerId: newId("whw"),
    write: (fn, writeOptions) => runTransaction(db, fn, writeOptions),
  };
}
