import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";

/** The longest a stream stays silent: a `: heartbeat` comment is sent after this many idle milliseconds. */
export const SSE_HEARTBEAT_MS = 15_000;

/**
 * Where a stream's events come from: the stored events after an id (oldest first; one page is enough, the
 * helper asks again until nothing new comes back), and an in-process hub that tells of new ones as they are
 * published. The helper never polls: after the replay it only listens.
 */
export interface StreamSource<M> {
  replay(afterId: number): Promise<readonly M[]>;
  subscribe(listener: (message: M) => void): () => void;
}

/** One SSE frame. */
export interface SseFrame {
  event?: string;
  data: string;
}

/** How one stream turns its source's messages into frames. */
export interface StreamOptions<M> {
  source: StreamSource<M>;
  /** The message's position in the stream; sent as `id:` and compared with `Last-Event-ID`. */
  idOf(message: M): number;
  /** Which live messages belong to this stream (default: all). */
  matches?(message: M): boolean;
  /** The frames one message is sent as; the first carries the `id:`. */
  frames(message: M): Promise<SseFrame[]> | SseFrame[];
  /** Ends the stream after this message (e.g. a job's `finished` event). */
  isLast?(message: M): boolean;
  /** Where to start when the client sends no `Last-Event-ID` (default 0: everything stored). */
  after?: number | undefined;
  /** Idle milliseconds before a heartbeat comment (default 15 s). */
  heartbeatMs?: number | undefined;
  /** Ends the stream once the stored messages are sent (its subject had already finished). */
  endAfterReplay?: boolean | undefined;
  /**
   * When the client sends no `Last-Event-ID`: what to send instead of the stored history — the current
   * state as frames, and the id it is as of (sent as `id:`; only messages after it follow).
   */
  snapshot?: (() => Promise<{ id: number; frames: SseFrame[] }>) | undefined;
  /**
   * The newest id there is: a `Last-Event-ID` past it (kept from another database, say) is treated as no
   * `Last-Event-ID` at all, so the client starts afresh instead of missing every change until ids catch up.
   */
  head?: number | undefined;
}

/** Whether the client resumes: a `Last-Event-ID` that is a whole number. */
function resumes(c: Context): boolean {
  const header = c.req.header("Last-Event-ID");
  const id = header === undefined || header.trim() === "" ? Number.NaN : Number(header);
  return Number.isSafeInteger(id) && id >= 0;
}

/** The id to resume after: a valid `Last-Event-ID` wins over `after`. */
export function resumeId(c: Context, after: number | undefined): number {
  const header = c.req.header("Last-Event-ID");
  const id = header === undefined || header.trim() === "" ? Number.NaN : Number(header);
  return Number.isSafeInteger(id) && id >= 0 ? id : (after ?? 0);
}

/** A queue of live messages the stream waits on, with a wake-up for new messages and for the end. */
class LiveQueue<M> {
  private readonly items: M[] = [];
  private wake: (() => void) | undefined;
  closed = false;

  push(message: M): void {
    this.items.push(message);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  shift(): M | undefined {
    return this.items.shift();
  }

  /** Resolves `true` after `ms` of silence, `false` as soon as a message arrives or the stream closes. */
  idle(ms: number): Promise<boolean> {
    if (this.items.length > 0 || this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(true);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(false);
      };
    });
  }
}

/**
 * Answers a server-sent event stream: subscribes first (so nothing published meanwhile is lost), replays the
 * stored events after the client's `Last-Event-ID` (or `after`; or, with a `snapshot` and no
 * `Last-Event-ID`, sends the snapshot and continues after its id), then sends live ones, each at most once and
 * in id order, with a heartbeat comment whenever the stream was idle for `heartbeatMs`. Unsubscribes when the
 * client goes away or the last message was sent.
 */
export function streamEvents<M>(c: Context, options: StreamOptions<M>): Response {
  const beyondHead = options.head !== undefined && resumeId(c, options.after) > options.head;
  const resuming = resumes(c) && !beyondHead;
  const start = beyondHead ? (options.after ?? 0) : resumeId(c, options.after);
  const heartbeatMs = options.heartbeatMs ?? SSE_HEARTBEAT_MS;
  return streamSSE(c, async (stream) => {
    const live = new LiveQueue<M>();
    const unsubscribe = options.source.subscribe((m) => {
      if (options.matches === undefined || options.matches(m)) live.push(m);
    });
    stream.onAbort(() => live.close());
    let lastId = start;
    if (options.snapshot !== undefined && !resuming) {
      // Subscribed first, so nothing after the snapshot's id is lost; history is sent only on resume.
      const snapshot = await options.snapshot();
      lastId = snapshot.id;
      await writeFrames(stream, snapshot.id, snapshot.frames);
    }
    /** Sends one message unless already sent; answers whether the stream is over. */
    const emit = async (m: M): Promise<boolean> => {
      const id = options.idOf(m);
      if (id <= lastId) return false;
      lastId = id;
      await writeFrames(stream, id, await options.frames(m));
      return options.isLast?.(m) === true;
    };
    try {
      if ((await replay(options.source, () => lastId, emit)) || options.endAfterReplay === true) return;
      while (!live.closed) {
        const next = live.shift();
        if (next !== undefined) {
          if (await emit(next)) return;
        } else if ((await live.idle(heartbeatMs)) && !live.closed) {
          await stream.write(": heartbeat\n\n");
        }
      }
    } finally {
      unsubscribe();
    }
  });
}

/** Sends the stored messages after the last id, page by page; answers whether the stream is over. */
async function replay<M>(
  source: StreamSource<M>,
  lastId: () => number,
  emit: (m: M) => Promise<boolean>,
): Promise<boolean> {
  for (;;) {
    const before = lastId();
    for (const m of await source.replay(before)) if (await emit(m)) return true;
    if (lastId() === before) return false;
  }
}

async function writeFrames(stream: SSEStreamingApi, id: number, frames: SseFrame[]): Promise<void> {
  let first = true;
  for (const frame of frames) {
    await stream.writeSSE({
      ...(first ? { id: String(id) } : {}),
      ...(frame.event === undefined ? {} : { event: frame.event }),
      data: frame.data,
    });
    first = false;
  }
}
