import { describe, expect, it } from "vitest";
import { retryAfterMs, SlidingWindow } from "./rate-window.js";

const W = 60_000;

describe("the sliding window", () => {
  it("allows the limit within a window and refuses the next hit without counting it", () => {
    const w = new SlidingWindow(W);
    const t0 = 10 * W;
    const decisions = Array.from({ length: 4 }, () => w.hit("k", 3, t0).allowed);
    expect(decisions).toEqual([true, true, true, false]);
    expect(w.hit("other", 3, t0).allowed).toBe(true);
  });

  it("weights the previous window by how much of it still overlaps the last minute", () => {
    const w = new SlidingWindow(W);
    for (let i = 0; i < 10; i++) w.hit("k", 10, 10 * W + W - 1);
    // 25 % into the next window: 10 × 0.75 = 7.5 of the previous still count, so 2 more fit, not 3.
    const at = 11 * W + W / 4;
    expect([w.hit("k", 10, at), w.hit("k", 10, at), w.hit("k", 10, at)].map((d) => d.allowed)).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("tells a refused caller a wait after which the hit is allowed, and not much before", () => {
    for (const [limit, hits, offset] of [
      [5, 5, 1_000],
      [10, 10, 30_000],
      [3, 3, 59_000],
    ] as const) {
      const w = new SlidingWindow(W);
      const start = 20 * W + offset;
      for (let i = 0; i < hits; i++) w.hit("k", limit, start);
      const refused = w.hit("k", limit, start);
      expect(refused.allowed).toBe(false);
      const probe = new SlidingWindow(W);
      for (let i = 0; i < hits; i++) probe.hit("k", limit, start);
      expect(probe.hit("k", limit, start + refused.retryAfterMs).allowed).toBe(true);
      const early = new SlidingWindow(W);
      for (let i = 0; i < hits; i++) early.hit("k", limit, start);
      expect(early.hit("k", limit, start + refused.retryAfterMs - 2_000).allowed).toBe(false);
    }
  });

  it("computes no wait when there is room and the rest of the window when the current count is full", () => {
    expect(retryAfterMs(0, 2, 1000, W, 5)).toBe(0);
    expect(retryAfterMs(0, 5, 0, W, 5)).toBe(W + W / 5);
  });

  it("forgets the least recently used keys past its key cap", () => {
    const w = new SlidingWindow(W, 2);
    w.hit("a", 1, 0);
    w.hit("b", 1, 0);
    w.hit("c", 1, 0);
    expect(w.size).toBe(2);
    expect(w.hit("a", 1, 1).allowed).toBe(true);
  });
});

describe("windows shared by several processes", () => {
  /** The shared store: every process's hits per key and window, as the database table keeps them. */
  function exchange(store: Map<string, number>, w: SlidingWindow, now: number): void {
    const sent = w.pending();
    for (const p of sent) {
      const id = `${p.key}|${p.windowStart}`;
      store.set(id, (store.get(id) ?? 0) + p.count);
    }
    const totals = [...store].map(([id, count]) => {
      const [key = "", start = "0"] = id.split("|");
      return { key, windowStart: Number(start), count };
    });
    w.applyTotals(sent, totals, now);
  }

  it("counts the other processes' hits after an exchange, in this window and weighted in the next", () => {
    const store = new Map<string, number>();
    const a = new SlidingWindow(W);
    const b = new SlidingWindow(W);
    const t0 = 10 * W;
    for (let i = 0; i < 6; i++) expect(a.hit("k", 10, t0).allowed).toBe(true);
    exchange(store, a, t0);
    exchange(store, b, t0);
    // B knows A's 6: 4 more fit, across both.
    expect(Array.from({ length: 5 }, () => b.hit("k", 10, t0 + 1).allowed)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    exchange(store, b, t0 + 2);
    exchange(store, a, t0 + 2);
    expect(a.hit("k", 10, t0 + 3).allowed).toBe(false);
    // An exchange again sends nothing twice: the store holds 10.
    exchange(store, a, t0 + 4);
    expect(store.get(`k|${t0}`)).toBe(10);
    // Half into the next window, 10 × 0.5 of the previous (both processes' hits) still count.
    const half = t0 + W + W / 2;
    exchange(store, b, half);
    expect(Array.from({ length: 6 }, () => b.hit("k", 10, half).allowed)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });
});
