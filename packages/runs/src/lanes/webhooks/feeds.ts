import { BACKGROUND } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import { webhookFeeds } from "../../store/schema.js";
import { enqueueWebhookEvent, type OutboxEvent } from "./outbox.js";
import type { HookResources } from "./resources.js";

/** One entry of an external feed: its position, the event it becomes, and when it happened. */
export interface FeedEntry {
  position: number;
  event: OutboxEvent;
  at: number;
}

/**
 * A durable event log of another engine relayed into the webhook outbox (the engine itself must not
 * depend on this package): positions increase in commit order.
 */
export interface WebhookFeed {
  /** A stable name; the relay's read position is stored under it. */
  name: string;
  /** Entries after `position`, oldest first, at most `limit`. */
  read(position: number, limit: number): Promise<FeedEntry[]>;
  /** The newest position now: where the relay starts the first time it sees this feed. */
  head(): Promise<number>;
}

const BATCH = 200;

/** The feed's stored position; the first time, its head (events from before are not webhook news). */
async function positionOf(r: HookResources, feed: WebhookFeed): Promise<number> {
  const [row] = await r.db.select().from(webhookFeeds).where(eq(webhookFeeds.name, feed.name)).limit(1);
  if (row !== undefined) return row.position;
  const head = await feed.head();
  await r.write(
    (tx) =>
      tx
        .insert(webhookFeeds)
        .values({ name: feed.name, position: head, updatedAt: r.now() })
        .onConflictDoNothing(),
    BACKGROUND,
  );
  const [stored] = await r.db.select().from(webhookFeeds).where(eq(webhookFeeds.name, feed.name)).limit(1);
  return stored?.position ?? head;
}

/**
 * Relays one batch of a feed into the outbox: reads after the stored position, then in one transaction
 * advances the position by compare-and-set and queues the events, so two processes relaying together
 * queue each entry once. Returns how many entries it relayed.
 */
export async function relayFeed(r: HookResources, feed: WebhookFeed): Promise<number> {
  const from = await positionOf(r, feed);
  const entries = await feed.read(from, BATCH);
  const last = entries.at(-1);
  if (last === undefined) return 0;
  return r.write(async (tx) => {
    const moved = await tx
      .update(webhookFeeds)
      .set({ position: last.position, updatedAt: r.now() })
      .where(and(eq(webhookFeeds.name, feed.name), eq(webhookFeeds.position, from)))
      .returning({ name: webhookFeeds.name });
    if (moved.length === 0) return 0;
    for (const entry of entries) await enqueueWebhookEvent(tx, entry.event, entry.at, r.newId);
    return entries.length;
  }, BACKGROUND);
}
