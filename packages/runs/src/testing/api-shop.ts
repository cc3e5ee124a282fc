import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { shopPage, widgetPage } from "./api-shop-pages.js";

/** What {@link startApiShop} serves with. */
export interface ApiShopOptions {
  email?: string;
  password?: string;
  /** The one-time code `POST /api/carts/{id}/otp` accepts. */
  otpCode?: string;
}

/** A running API shop on 127.0.0.1. */
export interface ApiShop {
  /** `http://127.0.0.1:<port>` — `/shop` (api-centric), `/widget` (a form built in script). */
  url: string;
  email: string;
  password: string;
  otpCode: string;
  /** A card number the shop accepts. */
  cardNumber: string;
  /** The orders paid so far (`ord_…`). */
  orders(): string[];
  /** Every request the shop saw, as `METHOD /path`. */
  requests(): string[];
  close(): Promise<void>;
}

interface Cart {
  token: string;
  items: Array<{ item: string; quantity: number }>;
  otpSent: boolean;
  verified: boolean;
  order: string | undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 64_000) req.destroy(new Error("body too large"));
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function parseJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const CSS = "body { font-family: sans-serif; }";
const CART_PATH = /^\/api\/carts\/([A-Za-z0-9_]+)\/(checkout|otp|pay)$/;

/**
 * Starts the API shop used by the reconstruction tests: `/shop` is a page whose every action is a JSON
 * request (`POST /api/login` → `{ token, csrf_token }`; `POST /api/carts` → `{ cart_id }`;
 * `POST /api/carts/{id}/checkout` sends a one-time code; `POST /api/carts/{id}/otp {code}`;
 * `POST /api/carts/{id}/pay {card_number}` → `{ paid, order_id }`), each after sign-in needing
 * `Authorization: Bearer <token>` and, for writes, `X-CSRF-Token`; plus a stylesheet and an analytics beacon.
 * `/widget` builds its form in script and signs the submission in the page. Nothing leaves loopback.
 */
export async function startApiShop(options: ApiShopOptions = {}): Promise<ApiShop> {
  const email = options.email ?? "ada@example.test";
  const password = options.password ?? "correct horse";
  const otpCode = options.otpCode ?? "424242";
  const cardNumber = "4242424242424242";
  const tokens = new Map<string, string>();
  const carts = new Map<string, Cart>();
  const orders: string[] = [];
  const seen: string[] = [];

  async function api(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const body = parseJson(await readBody(req));
    if (req.method === "POST" && path === "/api/login") {
      if (body.email !== email || body.password !== password) return json(res, 401, { error: "bad login" });
      const token = randomBytes(16).toString("hex");
      const csrf = randomBytes(12).toString("base64url");
      tokens.set(token, csrf);
      return json(res, 200, { token, csrf_token: csrf, user: { email } });
    }
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const csrf = tokens.get(token);
    if (csrf === undefined) return json(res, 401, { error: "sign in first" });
    if (req.method === "POST" && req.headers["x-csrf-token"] !== csrf) {
      return json(res, 403, { error: "bad csrf token" });
    }
    if (req.method === "POST" && path === "/api/carts") {
      const id = `cart_${randomBytes(6).toString("hex")}`;
      const quantity = typeof body.quantity === "number" ? body.quantity : 1;
      const item = { item: String(body.item ?? "tea"), quantity };
      carts.set(id, { token, items: [item], otpSent: false, verified: false, order: undefined });
      return json(res, 201, { cart_id: id, items: [item] });
    }
    const m = CART_PATH.exec(path);
    const cart = m?.[1] === undefined ? undefined : carts.get(m[1]);
    if (m === null || cart === undefined || cart.token !== token) return json(res, 404, { error: "no cart" });
    if (m[2] === "checkout") {
      cart.otpSent = true;
      return json(res, 200, { otp_required: true });
    }
    if (m[2] === "otp") {
      if (!cart.otpSent || body.code !== otpCode) return json(res, 401, { error: "wrong code" });
      cart.verified = true;
      return json(res, 200, { verified: true });
    }
    if (!cart.verified) return json(res, 409, { error: "verify the code first" });
    if (body.card_number !== cardNumber) return json(res, 402, { error: "card declined" });
    cart.order ??= `ord_${randomBytes(4).toString("hex")}`;
    orders.push(cart.order);
    return json(res, 200, { paid: true, order_id: cart.order });
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://shop").pathname;
      seen.push(`${req.method} ${path}`);
      if (path.startsWith("/api/")) return api(req, res, path);
      if (path === "/analytics/collect") {
        await readBody(req);
        res.writeHead(204);
        return res.end();
      }
      if (path === "/static/shop.css") {
        res.writeHead(200, { "Content-Type": "text/css" });
        return res.end(CSS);
      }
      const html = path === "/shop" ? shopPage : path === "/widget" ? widgetPage : undefined;
      if (path === "/widget/submit" && req.method === "POST") {
        const form = new URLSearchParams(await readBody(req));
        const ok = (form.get("signature") ?? "") !== "";
        res.writeHead(ok ? 200 : 400, { "Content-Type": "text/html; charset=utf-8" });
        return res.end(ok ? "<h1>Gift card sent</h1>" : "<h1>Unsigned request</h1>");
      }
      res.writeHead(html === undefined ? 404 : 200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(html ?? "<h1>Not found</h1>");
    })().catch(() => json(res, 500, { error: "internal" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    email,
    password,
    otpCode,
    cardNumber,
    orders: () => [...orders],
    requests: () => [...seen],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
