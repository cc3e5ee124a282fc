const acc = new Map<string, { n: number; ms: number }>();
export function prof<T>(label: string, p: Promise<T>): Promise<T> {
  const t0 = performance.now();
  return p.finally(() => {
    const e = acc.get(label) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += performance.now() - t0;
    acc.set(label, e);
  });
}
export function profReset() {
  acc.clear();
}
export function profDump() {
  for (const [k, v] of acc)
    console.log(k.padEnd(24), v.n, (v.ms / v.n).toFixed(1), "ms avg", v.ms.toFixed(0), "total");
}
