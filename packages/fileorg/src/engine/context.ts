import type { Database } from "./db.js";
import type { RowsEdited } from "./manifest/index.js";
import type { PathGuard } from "./path-guard.js";
import type { EventHub, HubMessage } from "./records.js";

/** What the engine's modules share. */
export interface EngineContext {
  db: Database;
  clock: () => number;
  ids: (prefix: string) => string;
  hub: EventHub;
  guard: PathGuard;
  /** Publishes hub messages (after their transaction committed). */
  publish(messages: readonly HubMessage[]): void;
  /** Told about every committed patch batch (review learns from a person's edits). */
  rowsEditedListeners: Array<(event: RowsEdited) => Promise<void> | void>;
}
