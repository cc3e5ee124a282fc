/*
 * The console's service worker (served by apps/server at `/sw.js`, scope `/`). It raises the system
 * notification of a run that starts waiting at a gate, once per wait across every open tab, and opens the
 * gate's page when the notification is clicked. Tabs post `{ type: "gate-waiting", key, title, body, url }`;
 * the worker shows each `key` once: a synchronous in-memory set (messages from several tabs are handled one
 * after another, so two tabs that saw the same change cannot both get past it) backed by Cache Storage
 * (so a worker restarted by the browser still remembers).
 */
const SEEN_CACHE = "vetted-gate-notices-v1";
/** Keys (run id, gate step, when the wait opened) already notified while this worker has lived. */
const seen = new Set();

self.addEventListener("install", () => {
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

/** A same-origin URL of the console for `key` (Cache Storage keys are requests). */
function seenUrl(key) {
  return new URL(`/__gate-notice/${encodeURIComponent(key)}`, self.location.origin).href;
}

/** Whether `key` was notified before; marks it notified. */
async function alreadyNotified(key) {
  if (seen.has(key)) return true;
  seen.add(key);
  const cache = await caches.open(SEEN_CACHE);
  if (await cache.match(seenUrl(key))) return true;
  await cache.put(seenUrl(key), new Response(String(Date.now())));
  return false;
}

/** Whether `url` is a path of the console (never another origin, never a `//host` path). */
function consolePath(url) {
  return typeof url === "string" && url.startsWith("/") && !url.startsWith("//");
}

async function notify(notice, port) {
  const fresh = !(await alreadyNotified(notice.key));
  if (fresh) {
    await self.registration.showNotification(notice.title, {
      body: notice.body,
      tag: notice.key,
      data: { url: notice.url, key: notice.key },
      requireInteraction: true,
    });
  }
  port?.postMessage({ key: notice.key, shown: fresh });
}

self.addEventListener("message", (event) => {
  const notice = event.data;
  if (
    notice === null ||
    typeof notice !== "object" ||
    notice.type !== "gate-waiting" ||
    typeof notice.key !== "string" ||
    typeof notice.title !== "string" ||
    typeof notice.body !== "string" ||
    !consolePath(notice.url)
  ) {
    return;
  }
  event.waitUntil(notify(notice, event.ports[0]));
});

/** Brings `client` forward; only a notification click may, so a refusal leaves it where it is. */
async function focus(client) {
  try {
    return await client.focus();
  } catch {
    return client;
  }
}

/** Shows the gate's page in a console tab (navigating one already open), or opens a new one. */
async function openGate(url) {
  const target = new URL(url, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const exact = windows.find((w) => w.url === target);
  if (exact) return focus(exact);
  for (const w of windows) {
    if (new URL(w.url).origin !== self.location.origin) continue;
    try {
      const moved = await w.navigate(target);
      if (moved) return focus(moved);
    } catch {
      // A tab this worker does not control cannot be navigated from here: try the next.
    }
  }
  return self.clients.openWindow(target);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url;
  if (!consolePath(url)) return;
  event.waitUntil(openGate(url));
});
