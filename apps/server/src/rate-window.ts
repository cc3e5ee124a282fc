/*
 * A sliding-window rate limiter (the "sliding window counter": this window's count plus the previous
 * window's, weighted by how much of it still overlaps the last `windowMs`). Constant memory per key, no
 * timers; pure but for the map it keeps.
 *
 * Shared by several processes: each keeps counting here (no I/O on a hit) and, now and then, hands its
 * unsent hits (`pending`) to a store every process shares and learns the totals there (`applyTotals`): the
 * hits of the other processes then count too, as of the last exchange.
 */

/** What one hit decided. */
export interface WindowDecision {
  allowed: boolean;
  /** How many more hits the key has in the sliding window after this one (0 when refused). */
  remaining: number;
  /** When refused: how long until a hit would be allowed (ms, at least 1 000). */
  retryAfterMs: number;
}

interface KeyState {
  windowStart: number;
  /** This process's hits in the previous and the current window. */
  previous: number;
  current: number;
  /** Of those, how many were sent to the shared store. */
  previousSent: number;
  currentSent: number;
  /** The other processes' hits, as the shared store last said. */
  previousOthers: number;
  currentOthers: number;
}

/** Hits of one key in one window: unsent ones (`pending`), or a total of every process (`applyTotals`). */
export interface WindowCount {
  key: string;
  windowStart: number;
  count: number;
}

/**
 * How long (ms) until `previous × (W − elapsed)/W + current + 1 ≤ limit` holds, counting the roll into the
 * next window (where `current` becomes `previous`).
 */
export function retryAfterMs(
  previous: number,
  current: number,
  elapsed: number,
  windowMs: number,
  limit: number,
): number {
  const room = limit - 1 - current;
  if (room >= 0) {
    if (previous <= room) return 0;
    return Math.max(0, windowMs - elapsed - (windowMs * room) / previous);
  }
  const intoNext = current <= limit - 1 ? 0 : windowMs - (windowMs * (limit - 1)) / current;
  return windowMs - elapsed + intoNext;
}

/** Per-key sliding windows of `windowMs`; at most `maxKeys` keys are tracked (the least recently used go). */
export class SlidingWindow {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Counts a hit of `key` at `now` when it fits under `limit`; refused hits are not counted. */
  hit(key: string, limit: number, now: number): WindowDecision {
    const start = now - (now % this.windowMs);
    const state = this.stateOf(key, start);
    const elapsed = now - start;
    const previous = state.previous + state.previousOthers;
    const current = state.current + state.currentOthers;
    const estimate = (previous * (this.windowMs - elapsed)) / this.windowMs + current;
    if (estimate + 1 > limit) {
      const wait = retryAfterMs(previous, current, elapsed, this.windowMs, limit);
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1000, Math.ceil(wait)) };
    }
    state.current += 1;
    return { allowed: true, remaining: Math.max(0, Math.floor(limit - estimate - 1)), retryAfterMs: 0 };
  }

  /** This process's hits not yet sent to the shared store (of the previous and the current window). */
  pending(): WindowCount[] {
    const out: WindowCount[] = [];
    for (const [key, s] of this.keys) {
      if (s.current > s.currentSent)
        out.push({ key, windowStart: s.windowStart, count: s.current - s.currentSent });
      if (s.previous > s.previousSent)
        out.push({ key, windowStart: s.windowStart - this.windowMs, count: s.previous - s.previousSent });
    }
    return out;
  }

  /**
   * After `sent` (what `pending` answered) reached the shared store, which then held `totals` (every
   * process's hits per key and window, `sent` included), as of `now`: the other processes' hits count too.
   */
  applyTotals(sent: readonly WindowCount[], totals: readonly WindowCount[], now: number): void {
    const start = now - (now % this.windowMs);
    for (const { key, windowStart, count } of sent) {
      const s = this.keys.get(key);
      if (s === undefined) continue;
      if (windowStart === s.windowStart) s.currentSent += count;
      else if (windowStart === s.windowStart - this.windowMs) s.previousSent += count;
    }
    for (const { key, windowStart, count } of totals) {
      if (windowStart !== start && windowStart !== start - this.windowMs) continue;
      const s = this.stateOf(key, start);
      if (windowStart === start) s.currentOthers = Math.max(0, count - s.currentSent);
      else s.previousOthers = Math.max(0, count - s.previousSent);
    }
  }

  /** How many keys are tracked. */
  get size(): number {
    return this.keys.size;
  }

  private stateOf(key: string, start: number): KeyState {
    const found = this.keys.get(key);
    this.keys.delete(key);
    const state = found ?? {
      windowStart: start,
      previous: 0,
      current: 0,
      previousSent: 0,
      currentSent: 0,
      previousOthers: 0,
      currentOthers: 0,
    };
    if (state.windowStart !== start) {
      const next = start - state.windowStart === this.windowMs;
      state.previous = next ? state.current : 0;
      state.previousSent = next ? state.currentSent : 0;
      state.previousOthers = next ? state.currentOthers : 0;
      state.current = 0;
      state.currentSent = 0;
      state.currentOthers = 0;
      state.windowStart = start;
    }
    this.keys.set(key, state);
    if (this.keys.size > this.maxKeys) {
      const oldest = this.keys.keys().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
    return state;
  }
}
