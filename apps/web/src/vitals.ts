import { type Metric, onCLS, onFCP, onINP, onLCP, onTTFB } from "web-vitals";

/** Sends web-vitals to `POST /api/health/rum` (batched on page hide); a 404 or failure is harmless. */
export function reportWebVitals(): void {
  const queue: { name: string; value: number; path: string; id: string }[] = [];
  const push = (m: Metric) => queue.push({ name: m.name, value: m.value, path: location.pathname, id: m.id });
  const flush = () => {
    if (queue.length === 0) return;
    const body = JSON.stringify({ samples: queue.splice(0) });
    void fetch("/api/health/rum", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      keepalive: true,
    }).catch(() => undefined);
  };
  onCLS(push);
  onFCP(push);
  onINP(push);
  onLCP(push);
  onTTFB(push);
  addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
  });
}
