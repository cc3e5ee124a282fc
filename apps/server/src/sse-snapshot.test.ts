import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { streamEvents } from "./sse.js";

interface Note {
  id: number;
  text: string;
}

/**
 * A source whose snapshot is taken "as of" event 5 while a change (event 6) is published during it — the
 * race a snapshot stream must survive: the stream is subscribed before the snapshot, so event 6 arrives live.
 */
function racingSource(history: Note[]) {
  const listeners = new Set<(m: Note) => void>();
  const publish = (m: Note) => {
    for (const l of listeners) l(m);
  };
  const stored: Note[] = [{ id: 4, text: "old" }, { id: 5, text: "older news" }, ...history];
  return {
    stored,
    publish,
    source: {
      replay: async (afterId: number) => stored.filter((m) => m.id > afterId),
      subscribe: (l: (m: Note) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    },
    snapshot: async () => {
      publish({ id: 5, text: "already in the snapshot" });
      publish({ id: 6, text: "during the snapshot" });
      publish({ id: 7, text: "end" });
      return { id: 5, frames: [{ event: "snapshot", data: "state as of 5" }] };
    },
  };
}

async function read(headers: Record<string, string> = {}, history: Note[] = []): Promise<string> {
  const race = racingSource(history);
  const app = new Hono().get("/stream", (c) =>
    streamEvents(c, {
      source: race.source,
      snapshot: race.snapshot,
      idOf: (m) => m.id,
      frames: (m) => [{ event: "note", data: m.text }],
      isLast: (m) => m.text === "end",
    }),
  );
  const res = await app.request("/stream", { headers });
  return res.text();
}

describe("a stream that starts from a snapshot", () => {
  it("sends the snapshot with its id, then every change after it — also one published during the snapshot", async () => {
    const text = await read();
    const frames = text
      .split("\n\n")
      .filter((block) => block !== "")
      .map((block) => {
        const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(block)?.[1];
        return [Number(field("id")), field("event"), field("data")];
      });
    expect(frames).toEqual([
      [5, "snapshot", "state as of 5"],
      [6, "note", "during the snapshot"],
      [7, "note", "end"],
    ]);
  });

  it("replays the history after Last-Event-ID instead, with no snapshot", async () => {
    const text = await read({ "Last-Event-ID": "3" }, [
      { id: 6, text: "news" },
      { id: 7, text: "end" },
    ]);
    expect(text).not.toContain("snapshot");
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([4, 5, 6, 7]);
  });
});
