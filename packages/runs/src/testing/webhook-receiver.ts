import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery a test receiver got. */
export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1: records every request and answers `status(path)` (default 200) after
 * `delayMs`. `listen(port)` can bring it back on the port it had.
 */
export async function startReceiver(
  options: { status?: (path: string) => number; delayMs?: number; port?: number } = {},
) {
  const received: ReceivedHook[] = [];
  let status = options.status ?? (() => 200);
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    const path = req.url ?? "/";
    received.push({ path, headers: req.headers, body, at: Date.now() });
    if (options.delayMs !== undefined) await new Promise((r) => setTimeout(r, options.delayMs));
    res.statusCode = status(path);
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    /** Changes what the receiver answers from now on. */
    answer(next: (path: string) => number) {
      status = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A webhook receiver. */
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
