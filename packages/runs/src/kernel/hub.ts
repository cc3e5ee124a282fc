import { and, asc, eq, gt, inArray, max, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { RunEvent } from "../domain/run.js";
import { events } from "../store/schema.js";

/** An event row as the API returns it. */
export function toEvent(row: typeof events.$inferSelect): RunEvent {
  return {
    id: row.seq,
    run_id: row.runId,
    type: row.type as RunEvent["type"],
    data: row.data,
    at: new Date(row.at).toISOString(),
  };
}

/** An event row as committed: its data as the JSON text stored. */
export interface StoredEvent {
  seq: number;
  type: string;
  json: string;
  at: number;
}

/** Receives a run's new events in order; called once with the backlog (maybe empty) right after subscribing. */
export type EventListener = (batch: RunEvent[]) => void;

/**
 * Fans a run's committed events out to its subscribers without a query per subscriber. The engine
 * announces each run whose events it committed; events committed by another process sharing the database
 * are found by one low-frequency catch-up query over all subscribed runs (`catchUpMs`).
 */
export interface EventHub {
  /** Delivers the run's events after `after` (the backlog first), then each new one. Returns the unsubscribe. */
  subscribe(runId: string, after: number, listener: EventListener): () => void;
  /**
   * Tells the hub the run has new committed events; given them (every event this process committed in
   * one transaction, in order), it hands them to the subscribers without reading them back when they
   * follow on from what it delivered.
   */
  announce(runId: string, committed?: readonly StoredEvent[]): void;
  /** How many runs have subscribers (for tests and metrics). */
  size(): number;
  /** Drops every subscription and stops the catch-up timer. */
  close(): void;
}

interface Subscriber {
  listener: EventListener;
  sent: number;
  fresh: boolean;
}

interface Watched {
  subs: Set<Subscriber>;
  /** The last seq fetched for the run's subscribers. */
  seq: number;
  chain: Promise<void>;
  /** A read is queued or running: committed events go through it, so nothing overtakes it. */
  pending: boolean;
  reading: boolean;
}

const PAGE = 500;

/** Creates the hub of one engine. */
export function createEventHub(options: HubOptions): EventHub {
  const hub = new Hub(options);
  return {
    subscribe: (runId, after, listener) => hub.subscribe(runId, after, listener),
    announce: (runId, committed) => hub.announce(runId, committed),
    size: () => hub.watched.size,
    close: () => hub.close(),
  };
}

/** What the hub reads from and how often it catches up. */
export interface HubOptions {
  db: LibSQLDatabase;
  catchUpMs: number;
  onError?: (err: unknown) => void;
}

/** The read of a run's events after a seq, one page: built and prepared once per hub, not per read. */
function eventsAfterQuery(db: LibSQLDatabase) {
  return db
    .select()
    .from(events)
    .where(and(eq(events.runId, sql.placeholder("run")), gt(events.seq, sql.placeholder("after"))))
    .orderBy(asc(events.seq))
    .limit(PAGE)
    .prepare();
}

class Hub {
  readonly watched = new Map<string, Watched>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly eventsAfter: ReturnType<typeof eventsAfterQuery>;

  constructor(private readonly options: HubOptions) {
    this.eventsAfter = eventsAfterQuery(options.db);
  }

  /** The run's events after `after` (up to `upTo`), oldest first, read in pages. */
  private async fetchAfter(runId: string, after: number, upTo?: number): Promise<RunEvent[]> {
    const out: RunEvent[] = [];
    for (let from = after; ; ) {
      const rows = await this.eventsAfter.all({ run: runId, after: from });
      for (const row of rows) if (upTo === undefined || row.seq <= upTo) out.push(toEvent(row));
      const last = rows[rows.length - 1];
      if (rows.length < PAGE || last === undefined || (upTo !== undefined && last.seq >= upTo)) return out;
      from = last.seq;
    }
  }

  private async drain(runId: string, w: Watched): Promise<void> {
    w.pending = false;
    // A subscriber that joined behind the others first gets its own backlog up to where they are.
    for (const sub of w.subs) {
      if (sub.sent < w.seq) deliver(sub, await this.fetchAfter(runId, sub.sent, w.seq));
    }
    const batch = await this.fetchAfter(runId, w.seq);
    const last = batch[batch.length - 1];
    if (last !== undefined) w.seq = last.id;
    for (const sub of w.subs) deliver(sub, batch);
  }

  private schedule(runId: string, w: Watched): void {
    if (w.pending) return;
    w.pending = true;
    w.reading = true;
    w.chain = w.chain
      .then(() => this.drain(runId, w))
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        if (!w.pending) w.reading = false;
      });
  }

  /** One query for every watched run: which ones have events the hub has not fetched yet. */
  private async catchUp(): Promise<void> {
    const ids = [...this.watched.keys()];
    if (ids.length === 0) return;
    const rows = await this.options.db
      .select({ runId: events.runId, seq: max(events.seq) })
      .from(events)
      .where(inArray(events.runId, ids))
      .groupBy(events.runId);
    for (const row of rows) {
      const w = this.watched.get(row.runId);
      if (w !== undefined && (row.seq ?? 0) > w.seq) this.schedule(row.runId, w);
    }
  }

  private startTimer(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.catchUp().catch((err: unknown) => this.options.onError?.(err));
    }, this.options.catchUpMs);
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  subscribe(runId: string, after: number, listener: EventListener): () => void {
    const sub: Subscriber = { listener, sent: after, fresh: true };
    let w = this.watched.get(runId);
    if (w === undefined) {
      w = { subs: new Set(), seq: after, chain: Promise.resolve(), pending: false, reading: false };
      this.watched.set(runId, w);
    }
    w.subs.add(sub);
    this.startTimer();
    this.schedule(runId, w);
    const mine = w;
    return () => {
      mine.subs.delete(sub);
      if (mine.subs.size === 0 && this.watched.get(runId) === mine) this.watched.delete(runId);
      if (this.watched.size === 0) this.stopTimer();
    };
  }

  announce(runId: string, committed?: readonly StoredEvent[]): void {
    const w = this.watched.get(runId);
    if (w === undefined) return;
    const first = committed?.[0];
    // Only what follows on from the last event delivered, with no read in between; else read it.
    if (committed === undefined || first === undefined || w.reading || first.seq !== w.seq + 1) {
      this.schedule(runId, w);
      return;
    }
    const batch = committed.map((e) =>
      toEvent({
        runId,
        seq: e.seq,
        type: e.type,
        data: JSON.parse(e.json) as Record<string, unknown>,
        at: e.at,
      }),
    );
    w.seq = committed[committed.length - 1]?.seq ?? w.seq;
    for (const sub of w.subs) deliver(sub, batch);
  }

  close(): void {
    this.watched.clear();
    this.stopTimer();
  }
}

function deliver(sub: Subscriber, batch: RunEvent[]): void {
  const news = batch.filter((e) => e.id > sub.sent);
  const last = news[news.length - 1];
  if (last !== undefined) sub.sent = last.id;
  if (news.length > 0 || sub.fresh) {
    sub.fresh = false;
    sub.listener(news);
  }
}
