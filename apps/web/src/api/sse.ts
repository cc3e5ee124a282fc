import { useEffect } from "react";
import { authHeaders } from "./client.js";

/** One server-sent event: its `id`, `event` name (default `message`) and raw `data`. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** Splits an SSE text buffer into complete messages; returns them and the unfinished rest. */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? "";
  const messages: SseMessage[] = [];
  for (const block of blocks) {
    let id: string | undefined;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) messages.push({ id, event, data: data.join("\n") });
  }
  return { messages, rest };
}

/**
 * Follows an event stream over `fetch` (so the API token header goes along, which EventSource cannot do),
 * reconnecting with `Last-Event-ID` after a drop. Stops when `enabled` turns false or on unmount.
 */
export function useEventStream(url: string, onMessage: (m: SseMessage) => void, enabled = true): void {
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let lastId: string | undefined;
    const follow = async () => {
      while (!abort.signal.aborted) {
        try {
          const headers: Record<string, string> = { accept: "text/event-stream", ...authHeaders() };
          if (lastId !== undefined) headers["last-event-id"] = lastId;
          const res = await fetch(url, { headers, signal: abort.signal });
          if (!res.ok || res.body === null) return;
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const parsed = parseSse(buffer + value);
            buffer = parsed.rest;
            for (const m of parsed.messages) {
              if (m.id !== undefined) lastId = m.id;
              onMessage(m);
            }
          }
        } catch {
          if (abort.signal.aborted) return;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    void follow();
    return () => abort.abort();
  }, [url, enabled, onMessage]);
}
