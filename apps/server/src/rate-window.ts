/*
 * A sliding-window rate limiter (the "sliding window counter": this window's count plus the previous
 * window's, weighted by how much of it still overlaps the last `windowMs`). Constant memory per key, no
 * timers; pure but for the map it keeps.
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
  previous: number;
  current: number;
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
    const estimate = (state.previous * (this.windowMs - elapsed)) / this.windowMs + state.current;
    if (estimate + 1 > limit) {
      const wait = retryAfterMs(state.previous, state.current, elapsed, this.windowMs, limit);
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1000, Math.ceil(wait)) };
    }
    state.current += 1;
    return { allowed: true, remaining: Math.max(0, Math.floor(limit - estimate - 1)), retryAfterMs: 0 };
  }

  /** How many keys are tracked. */
  get size(): number {
    return this.keys.size;
  }

  private stateOf(key: string, start: number): KeyState {
    const found = this.keys.get(key);
    this.keys.delete(key);
    const state = found ?? { windowStart: start, previous: 0, current: 0 };
    if (state.windowStart !== start) {
      state.previous = start - state.windowStart === this.windowMs ? state.current : 0;
      state.current = 0;
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
