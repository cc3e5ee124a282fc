import type { OutputEntry } from "./task-store.js";

/** Receives a task's new output entries as they are committed by this process. */
export type OutputListener = (entries: OutputEntry[]) => void;

/** Fans committed output entries out to the in-process stream subscribers of each task. */
export interface OutputHub {
  publish(taskId: string, entries: OutputEntry[]): void;
  /** Returns the unsubscribe. */
  subscribe(taskId: string, listener: OutputListener): () => void;
  close(): void;
}

/** Creates a hub (one per automation engine). */
export function createOutputHub(): OutputHub {
  const listeners = new Map<string, Set<OutputListener>>();
  return {
    publish(taskId, entries) {
      if (entries.length === 0) return;
      for (const listener of listeners.get(taskId) ?? []) listener(entries);
    },
    subscribe(taskId, listener) {
      let set = listeners.get(taskId);
      if (set === undefined) {
        set = new Set();
        listeners.set(taskId, set);
      }
      set.add(listener);
      const mine = set;
      return () => {
        mine.delete(listener);
        if (mine.size === 0 && listeners.get(taskId) === mine) listeners.delete(taskId);
      };
    },
    close: () => listeners.clear(),
  };
}
