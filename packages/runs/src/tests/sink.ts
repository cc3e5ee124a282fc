import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a sink received. */
export interface SinkRequest {
  method: string;
  path: string;
  host: string;
}

/** How a sink answers one request (it may hold the response as long as it likes). */
export type SinkHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A `node:http` server on 127.0.0.1 that counts what it receives and answers with `handler`. */
export async function startSink(handler: SinkHandler = (_req, res) => void res.end('{"ok":true}')) {
  const received: SinkRequest[] = [];
  const server = createServer((req, res) => {
    received.push({ method: req.method ?? "GET", path: req.url ?? "/", host: req.headers.host ?? "" });
    req.resume();
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
