/** "3 min", "2 h 5 min", "12 s": a duration in words for people. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}

/** "in 4 min" / "4 min ago" relative to now. */
export function relative(iso: string, now: number): string {
  const delta = Date.parse(iso) - now;
  return delta >= 0 ? `in ${humanDuration(delta)}` : `${humanDuration(-delta)} ago`;
}
