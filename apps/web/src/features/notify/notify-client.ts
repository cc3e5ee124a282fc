import { useSyncExternalStore } from "react";
import type { GateNotice } from "./model/wait-notice.js";

/**
 * Browser notifications of waiting gates: the person's choice (kept in `localStorage`), the browser's
 * permission, the service worker (`/sw.js`, which shows each wait once across tabs) and the notices sent
 * to it.
 */

const CHOICE_KEY = "vetted.gate-notifications";
const SW_URL = "/sw.js";
const listeners = new Set<() => void>();

/** `on`: notify; `off`: the person said no (or not now); undefined: never asked. */
export type NotifyChoice = "on" | "off";

/** What the console can do: `unsupported` (no Notification API or service workers), else the permission. */
export type NotifySupport = "unsupported" | NotificationPermission;

/** The person's stored choice, if any. */
function storedChoice(): NotifyChoice | undefined {
  const v = localStorage.getItem(CHOICE_KEY);
  return v === "on" || v === "off" ? v : undefined;
}

function support(): NotifySupport {
  if (typeof Notification === "undefined" || !("serviceWorker" in navigator)) return "unsupported";
  return Notification.permission;
}

/** The state the UI shows: support/permission and the stored choice, as one comparable string. */
function snapshot(): string {
  return `${support()}|${storedChoice() ?? ""}`;
}

function changed(): void {
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === CHOICE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** The notification state for rendering. */
export interface NotifyState {
  support: NotifySupport;
  choice: NotifyChoice | undefined;
  /** Notices are raised: permission granted and the person has not turned them off. */
  enabled: boolean;
  /** The one-time prompt is due: the browser would ask, and the person was never asked. */
  shouldAsk: boolean;
}

/** The notification state, re-rendered when it changes (in this tab or, for the choice, another). */
export function useNotifyState(): NotifyState {
  const snap = useSyncExternalStore(subscribe, snapshot);
  const [s, c] = snap.split("|");
  const sup = (s ?? "unsupported") as NotifySupport;
  const choice = c === "on" || c === "off" ? c : undefined;
  return {
    support: sup,
    choice,
    enabled: sup === "granted" && choice !== "off",
    shouldAsk: sup === "default" && choice === undefined,
  };
}

/** Registers the console's service worker (idempotent); undefined where there are none. */
export async function registerWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!("serviceWorker" in navigator)) return undefined;
  return navigator.serviceWorker.register(SW_URL, { scope: "/" });
}

/**
 * Turns gate notifications on: asks the browser (from a click, never on load), registers the worker and
 * stores the answer. Answers whether they are on.
 */
export async function turnOn(): Promise<boolean> {
  if (support() === "unsupported") return false;
  const permission = await Notification.requestPermission();
  localStorage.setItem(CHOICE_KEY, permission === "granted" ? "on" : "off");
  if (permission === "granted") await registerWorker();
  changed();
  return permission === "granted";
}

/** Turns them off (or answers "not now" to the prompt): remembered, never asked again on its own. */
export function turnOff(): void {
  localStorage.setItem(CHOICE_KEY, "off");
  changed();
}

/** How long a tab waits for the worker's answer to a notice. */
const ANSWER_MS = 5_000;

/**
 * Hands `notice` to the service worker, which shows it unless this wait was shown before (by this tab or
 * another). Answers whether it was shown now; false when no worker answered in time.
 */
export async function sendNotice(notice: GateNotice): Promise<boolean> {
  const registration = await registerWorker();
  if (registration === undefined) return false;
  const ready = await navigator.serviceWorker.ready;
  const worker = ready.active;
  if (worker === null) return false;
  const channel = new MessageChannel();
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ANSWER_MS);
    channel.port1.onmessage = (e: MessageEvent<{ shown?: unknown }>) => {
      clearTimeout(timer);
      channel.port1.close();
      resolve(e.data.shown === true);
    };
    worker.postMessage({ type: "gate-waiting", ...notice }, [channel.port2]);
  });
}
