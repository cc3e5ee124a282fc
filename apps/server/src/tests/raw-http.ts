import { connect } from "node:net";

/** What came back on a raw socket: the status line's code, the head's headers and the body text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the server closing the connection. */
  ms: number;
}

/**
 * Writes `chunks` to a fresh TCP connection (the first at once, the rest `gapMs` apart) and reads until the
 * server closes it — for requests no HTTP client would send (oversized or malformed heads, slow clients).
 */
export async function rawRequest(url: string, chunks: readonly string[], gapMs = 0): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket = connect({ host: hostname, port: Number(port) });
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  const closed = new Promise<void>((resolve, reject) => {
    socket.on("close", () => resolve());
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? resolve() : reject(err)));
  });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  for (const [i, chunk] of chunks.entries()) {
    if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    if (socket.destroyed) break;
    socket.write(chunk);
  }
  await closed;
  return parseAnswer(Buffer.concat(received).toString("utf8"), Date.now() - started);
}

function parseAnswer(text: string, ms: number): RawAnswer {
  const split = text.indexOf("\r\n\r\n");
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: split === -1 ? "" : text.slice(split + 4),
    ms,
  };
}
