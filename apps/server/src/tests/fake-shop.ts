import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The right one-time code at the fake shop. */
export const GOOD_OTP = "123456";

/** A shop on 127.0.0.1 and a payment provider on 127.0.0.2, served by local `node:http` servers. */
export interface FakeShop {
  shopUrl: string;
  providerUrl: string;
  /**
   * How many requests a run's step sent, over all its attempts (the engine keys each request
   * `<run>:<step>:<attempt>`).
   */
  count(runId: string, stepId: string): number;
  /** Every request path received, in order. */
  paths: string[];
  close(): Promise<void>;
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * Starts the fake shop: `POST /cart` answers a cart id, `POST /pay` accepts only {@link GOOD_OTP} (402
 * otherwise), `POST /charge` charges, `/slow` answers after 10 s, anything else answers 200.
 */
export async function startFakeShop(): Promise<FakeShop> {
  const counts = new Map<string, number>();
  const paths: string[] = [];
  const handler = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = (text.length > 0 ? JSON.parse(text) : {}) as Record<string, unknown>;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const key = String(req.headers["idempotency-key"] ?? "");
    counts.set(key, (counts.get(key) ?? 0) + 1);
    paths.push(path);
    res.setHeader("Content-Type", "application/json");
    if (path === "/cart") {
      res.end(JSON.stringify({ id: `cart_${paths.length}`, sku: body.sku }));
    } else if (path === "/pay") {
      const ok = body.otp === GOOD_OTP;
      res.statusCode = ok ? 200 : 402;
      res.end(JSON.stringify({ paid: ok }));
    } else if (path === "/slow") {
      const timer = setTimeout(() => res.end("{}"), 10_000);
      res.on("close", () => clearTimeout(timer));
    } else {
      res.end(JSON.stringify({ ok: true, path }));
    }
  });
  const provider = createServer((req, res) => handler.emit("request", req, res));
  const shopPort = await listen(handler, "127.0.0.1");
  const providerPort = await listen(provider, "127.0.0.2");
  return {
    shopUrl: `http://127.0.0.1:${shopPort}`,
    providerUrl: `http://127.0.0.2:${providerPort}`,
    count: (runId, stepId) =>
      [...counts].reduce((n, [key, c]) => (key.startsWith(`${runId}:${stepId}:`) ? n + c : n), 0),
    paths,
    async close() {
      handler.closeAllConnections();
      provider.closeAllConnections();
      await Promise.all([
        new Promise<void>((r) => handler.close(() => r())),
        new Promise<void>((r) => provider.close(() => r())),
      ]);
    },
  };
}
