import { useEffect, useState } from "react";
import { authHeaders, onTokenSet } from "./client.js";

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

/** Resolves when a token is set (after a 401) or the follower stops. */
function tokenOrAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = onTokenSet(() => {
      stop();
      resolve();
    });
    signal.addEventListener("abort", () => {
      stop();
      resolve();
    });
  });
}

/**
 * Follows an event stream over `fetch` (so the API token header goes along, which EventSource cannot do),
 * reconnecting with `Last-Event-ID` after a drop; after a 401 it waits for the token prompt, after another
 * refusal it stops. Stops when `enabled` turns false or on unmount. Answers whether the stream is connected
 * now (a caller can fall back to polling while it is not).
 */
export function useEventStream(url: string, onMessage: (m: SseMessage) => void, enabled = true): boolean {
  const [connected, setConnected] = useState(false);
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
          if (res.status === 401) {
            await tokenOrAbort(abort.signal);
            continue;
          }
          if (!res.ok || res.body === null) return;
          setConnected(true);
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
        } finally {
          if (!abort.signal.aborted) setConnected(false);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    void follow();
    return () => {
      abort.abort();
      setConnected(false);
    };
  }, [url, enabled, onMessage]);
  return connected;
}
