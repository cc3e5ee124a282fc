import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createHttpServer } from "../http-server.js";
import { createLogger } from "../logger.js";

/** A fetch handler served on loopback by the server's real Node HTTP server. */
export interface Loopback {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Drops open connections (streams included) and stops listening. */
  close(): Promise<void>;
}

/** Serves `fetch` on an ephemeral 127.0.0.1 port, as `main` serves the app (a silent logger). */
export async function serveOnLoopback(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<Loopback> {
  const server = createHttpServer({
    fetch,
    hostname: "127.0.0.1",
    headersTimeoutMs: 5000,
    requestTimeoutMs: 60_000,
    logger: createLogger("silent"),
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
