import type { Tx } from "@vetted/store";
import { type ClaimedDelivery, claimDelivery, findDue, sendClaimed } from "./dispatcher.js";
import { relayFeed } from "./feeds.js";
import { createTaskFinishedHook, enqueueWebhookEvent, type OutboxEvent } from "./outbox.js";
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  sendTestDelivery,
} from "./registry.js";
import { createHookResources, type HookResources, type WebhooksEngineOptions } from "./resources.js";

type Tail<F> = F extends (r: never, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/** The dispatcher loop of one process: relays feeds, claims due deliveries, sends up to `concurrency` at once. */
class Dispatcher {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private stopped = false;
  private ticking: Promise<void> | undefined;
  private claims = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly r: HookResources) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for due deliveries soon (after a redelivery, say). */
  kick(): void {
    if (this.running && this.ticking === undefined) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        if (this.running) this.schedule(this.r.pollMs);
      });
    }, ms);
  }

  /** One round: relay every feed, then claim and start as many due deliveries as there are free slots. */
  async tick(): Promise<void> {
    const r = this.r;
    try {
      for (const feed of r.feeds) await relayFeed(r, feed);
      const free = r.concurrency - this.inFlight.size;
      if (free <= 0) return;
      const at = r.now();
      for (const id of await findDue(r, at, free * 2)) {
        if (this.inFlight.size >= r.concurrency || this.stopped) break;
        this.claims += 1;
        const token = `${r.workerId}:${this.claims}`;
        const row = await claimDelivery(r, id, token, at);
        if (row !== undefined) this.track({ row, token });
      }
    } catch (err) {
      r.onError("the webhook dispatcher failed a round", err);
    }
  }

  private track(claimed: ClaimedDelivery): void {
    const sending = sendClaimed(this.r, claimed.row, claimed.token)
      .catch((err: unknown) => this.r.onError("a webhook delivery failed unexpectedly", err))
      .finally(() => {
        this.inFlight.delete(sending);
        this.kick();
      });
    this.inFlight.add(sending);
  }
}

/**
 * Creates the signed-webhooks engine: subscriptions (secrets sealed with the runs secrets key), the
 * deliveries of the outbox, redelivery, and the dispatcher (`start`/`stop`) that claims due deliveries
 * under a lease, signs and POSTs them through the outbound policy, and retries failures with exponential
 * backoff and jitter for 24 h. Run transitions reach the outbox from the run engine itself; other engines'
 * events come through `feeds` or {@link WebhooksEngine.enqueue} inside their own transactions.
 */
export function createWebhooksEngine(options: WebhooksEngineOptions) {
  const r = createHookResources(options);
  const dispatcher = new Dispatcher(r);
  const bind =
    <F extends (res: HookResources, ...rest: never[]) => unknown>(verb: F) =>
    (...rest: Parameters<Tail<F>>) =>
      verb(r, ...(rest as never[])) as ReturnType<F>;
  return {
    createWebhook: bind(createWebhook),
    getWebhook: bind(getWebhook),
    listWebhooks: bind(listWebhooks),
    deleteWebhook: bind(deleteWebhook),
    listDeliveries: bind(listDeliveries),
    getDelivery: bind(getDelivery),
    /** Queues a new delivery of the same event, due now. */
    redeliver: async (webhookId: string, deliveryId: string) => {
      const delivery = await redeliver(r, webhookId, deliveryId);
      dispatcher.kick();
      return delivery;
    },
    /** Queues a `webhook.test` delivery to this one webhook, due now. */
    sendTest: async (webhookId: string) => {
      const delivery = await sendTestDelivery(r, webhookId);
      dispatcher.kick();
      return delivery;
    },
    /** Writes an event to the outbox inside the caller's transaction (the transition it reports). */
    enqueue: (tx: Tx, event: OutboxEvent) => enqueueWebhookEvent(tx, event, r.now(), r.newId),
    /** The automation lane's `onTransition(tx, task)` hook: queues `task.finished` for a finished task. */
    taskFinishedHook: createTaskFinishedHook(r.newId, r.now),
    /** Tells the outbound policy where this server listens, so a webhook cannot target its own API. */
    setServerAddress: (address: string, port: number) => r.policy.setServerAddress(address, port),
    /** Starts this process's dispatcher. Idempotent. */
    start: () => dispatcher.start(),
    /** Stops the dispatcher and waits for the deliveries it is sending. */
    stop: () => dispatcher.stop(),
    /** One dispatcher round now (tests and tools); the started loop does this every `pollMs`. */
    dispatchOnce: () => dispatcher.tick(),
  };
}

/** The signed-webhooks engine. */
export type WebhooksEngine = ReturnType<typeof createWebhooksEngine>;
