import { and, asc, gt, inArray, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { RUN_CHANGE_TYPES, type RunChange, type RunChangeType, toRunChange } from "../domain/run-change.js";
import { events } from "../store/schema.js";

/**
 * A change's position is the rowid of its row in `runs_events`. Rows are only ever appended, and SQLite has
 * one writer at a time, so rowids grow in commit order: a reader that sees row N has seen every row below it.
 */
const POSITION = sql<number>`rowid`;
const PAGE = 500;

/** Receives new run-list changes in order; called once (maybe empty) right after subscribing. */
export type ChangeListener = (batch: RunChange[]) => void;

/**
 * Fans the changes of the runs list (a run created, a status changed) out to its subscribers with one
 * query per batch of commits, not one per subscriber. The engine announces its own commits; commits of
 * other processes sharing the database are found by one cheap `max(rowid)` query every `catchUpMs` while
 * anyone listens.
 */
export interface ChangeHub {
  /** Delivers the changes after `after` (the backlog first), then each new one. Returns the unsubscribe. */
  subscribe(after: number, listener: ChangeListener): () => void;
  /** Tells the hub that run events were committed. */
  announce(): void;
  /** The newest position so far (0 when there is none): a new follower starts after it. */
  head(): Promise<number>;
  /** Up to `limit` changes after `after`, oldest first. */
  since(after: number, limit?: number): Promise<RunChange[]>;
  /** How many subscribers listen (for tests and metrics). */
  size(): number;
  /** Drops every subscription and stops the catch-up timer. */
  close(): void;
}

interface Subscriber {
  listener: ChangeListener;
  sent: number;
  fresh: boolean;
}

/** Creates the run-list change hub of one engine. */
export function createChangeHub(options: {
  db: LibSQLDatabase;
  catchUpMs: number;
  onError?: (err: unknown) => void;
}): ChangeHub {
  const { db } = options;
  const subs = new Set<Subscriber>();
  /** Every change at or below it was fetched for the subscribers; undefined while nobody listens. */
  let seq: number | undefined;
  let chain = Promise.resolve();
  let pending = false;
  let timer: ReturnType<typeof setInterval> | undefined;

  const head = async (): Promise<number> => {
    const [row] = await db.select({ head: sql<number | null>`max(rowid)` }).from(events);
    return Number(row?.head ?? 0);
  };
  const since = async (after: number, limit = PAGE): Promise<RunChange[]> => {
    const rows = await db
      .select({
        position: POSITION,
        runId: events.runId,
        type: events.type,
        data: events.data,
        at: events.at,
      })
      .from(events)
      .where(and(gt(POSITION, after), inArray(events.type, [...RUN_CHANGE_TYPES])))
      .orderBy(asc(POSITION))
      .limit(limit);
    return rows.map((row) =>
      toRunChange(Number(row.position), {
        runId: row.runId,
        type: row.type as RunChangeType,
        data: row.data,
        at: new Date(row.at).toISOString(),
      }),
    );
  };
  /** Every change after `after` (up to `upTo`), page by page. */
  const fetchAfter = async (after: number, upTo = Number.POSITIVE_INFINITY): Promise<RunChange[]> => {
    const out: RunChange[] = [];
    for (let from = after; ; ) {
      const page = await since(from);
      for (const change of page) if (change.id <= upTo) out.push(change);
      const last = page[page.length - 1];
      if (page.length < PAGE || last === undefined || last.id >= upTo) return out;
      from = last.id;
    }
  };
  const drain = async (): Promise<void> => {
    pending = false;
    const from = seq;
    if (from === undefined) return;
    for (const sub of subs) if (sub.sent < from) deliver(sub, await fetchAfter(sub.sent, from));
    // Read the head first: every row at or below it is committed, so the fetch below sees them all.
    const top = await head();
    const batch = await fetchAfter(from);
    if (seq !== from) return; // everyone left meanwhile (a new subscriber schedules its own drain)
    seq = Math.max(from, top, batch[batch.length - 1]?.id ?? 0);
    for (const sub of subs) deliver(sub, batch);
  };
  const schedule = (): void => {
    if (pending || subs.size === 0) return;
    pending = true;
    chain = chain.then(drain).catch((err: unknown) => options.onError?.(err));
  };
  const catchUp = async (): Promise<void> => {
    if (seq !== undefined && (await head()) > seq) schedule();
  };
  return {
    subscribe(after, listener) {
      const sub: Subscriber = { listener, sent: after, fresh: true };
      if (subs.size === 0) seq = after;
      subs.add(sub);
      if (timer === undefined) {
        timer = setInterval(() => {
          catchUp().catch((err: unknown) => options.onError?.(err));
        }, options.catchUpMs);
        timer.unref?.();
      }
      schedule();
      return () => {
        subs.delete(sub);
        if (subs.size > 0) return;
        seq = undefined;
        if (timer !== undefined) clearInterval(timer);
        timer = undefined;
      };
    },
    announce: schedule,
    head,
    since: (after, limit) => since(after, Math.min(Math.max(1, limit ?? PAGE), PAGE)),
    size: () => subs.size,
    close() {
      subs.clear();
      seq = undefined;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

function deliver(sub: Subscriber, batch: RunChange[]): void {
  const news = batch.filter((c) => c.id > sub.sent);
  const last = news[news.length - 1];
  if (last !== undefined) sub.sent = last.id;
  if (news.length > 0 || sub.fresh) {
    sub.fresh = false;
    sub.listener(news);
  }
}
