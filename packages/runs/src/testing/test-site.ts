import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  cardFormPage,
  leakyPage,
  pages,
  paymentPage,
  revealPage,
  stepsPage,
  takeoverPage,
  wanderPage,
} from "./test-site-pages.js";

/** What {@link startTestSite} serves with. */
export interface TestSiteOptions {
  email?: string;
  password?: string;
  /** The one-time code the OTP page accepts. */
  otpCode?: string;
  /** The second loopback address the payment provider listens on (default 127.0.0.2). */
  payHost?: string;
  /** How long the provider takes to answer a payment (ms, default 0): a slow provider. */
  payDelayMs?: number;
  /**
   * How long the embedded card form (`/card-form`) takes to post after "Pay now" (ms, default 0): a form
   * that tokenises the card first.
   */
  cardSubmitDelayMs?: number;
}

/** A running test site: a shop on 127.0.0.1 and a payment provider on a second loopback address. */
export interface TestSite {
  /**
   * `http://127.0.0.1:<port>` — `/login`, `/account`, `/otp`, `/checkout`, `/go?to=<url>` (a 302 to
   * `url`), `/leaky?kind=<fetch|beacon|form|image|websocket>` (a page that sends that request to the
   * provider by itself while it loads), `/steps` (controls reaching the provider under harmless names:
   * "Continue" (a form posting there), "Next" (a script POST), "Details" (a redirecting link)),
   * `/wander?to=<url>&after=<ms>` (a "Continue" button; the page navigates itself to `url` after `ms`),
   * `/reveal` (a password field "Secret word" whose text the page echoes),
   * and `/frames` (`?sca=1`: paying
   * leads to `/3ds`, `?sca=2`: to `/verify`, a challenge told only by its text): a
   * same-origin frame `note` ("Note", "Save note") and the provider's card form in a frame `card`.
   */
  url: string;
  /**
   * `http://127.0.0.2:<port>` — `/pay` ("Pay now"), `/card-form` (the card form `/frames` embeds:
   * "Cardholder", "Card number", "Pay now"), `/3ds` (a 3-D Secure challenge), `/paid`.
   */
  payUrl: string;
  /** The payment provider's host (configure it as a protected provider domain). */
  payHost: string;
  email: string;
  password: string;
  otpCode: string;
  /** How many payments were made (POST /pay answered). */
  payments(): number;
  /** The card numbers the payments were made with (the `card` field posted, "" when none). */
  cardsPaidWith(): string[];
  /** Every request the two servers saw, as `METHOD host/path` (`UPGRADE host/path` for a WebSocket). */
  requests(): string[];
  close(): Promise<void>;
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 64_000) req.destroy(new Error("form too large"));
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

function cookiesOf(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== undefined && name !== "") jar.set(name, rest.join("="));
  }
  return jar;
}

function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", ...headers });
  res.end(html);
}

function redirect(res: ServerResponse, to: string, headers: Record<string, string | string[]> = {}) {
  res.writeHead(303, { Location: to, ...headers });
  res.end();
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Starts the local test site used by the browser tests and the bench: a login form (email, password →
 * an `/account` page behind a session cookie), an OTP page, a checkout (needs login and the code) whose
 * "Continue to payment" link leads to a payment page on a **second loopback host** with a "Pay now" button,
 * and a 3-D Secure challenge page. Nothing leaves loopback.
 */
export async function startTestSite(options: TestSiteOptions = {}): Promise<TestSite> {
  const email = options.email ?? "ada@example.test";
  const password = options.password ?? "correct horse";
  const otpCode = options.otpCode ?? "424242";
  const payHost = options.payHost ?? "127.0.0.2";
  const sessions = new Map<string, { email: string; otp: boolean }>();
  const seen: string[] = [];
  let payments = 0;
  const cards: string[] = [];
  let payUrl = "";
  let shopUrl = "";

  const shop = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://shop");
      seen.push(`${req.method} 127.0.0.1${url.pathname}`);
      const session = sessions.get(cookiesOf(req).get("sid") ?? "");
      if (req.method === "POST" && url.pathname === "/login") {
        const form = await readForm(req);
        if (form.get("email") !== email || form.get("password") !== password) {
          return send(res, 401, pages.login("Wrong email or password"));
        }
        const sid = randomBytes(12).toString("hex");
        sessions.set(sid, { email, otp: false });
        return redirect(res, "/account", { "Set-Cookie": `sid=${sid}; Path=/; HttpOnly; SameSite=Lax` });
      }
      if (url.pathname === "/login") return send(res, 200, pages.login(""));
      if (url.pathname === "/frames") {
        const sca = ["1", "2"].includes(url.searchParams.get("sca") ?? "")
          ? url.searchParams.get("sca")
          : "0";
        return send(res, 200, pages.frames(`${payUrl}/card-form?sca=${sca}`));
      }
      if (url.pathname === "/frames/note") return send(res, 200, pages.note());
      if (url.pathname === "/steps") return send(res, 200, stepsPage(payUrl));
      if (url.pathname === "/reveal") return send(res, 200, revealPage());
      if (url.pathname === "/takeover") return send(res, 200, takeoverPage(payUrl));
      if (url.pathname === "/wander")
        return send(
          res,
          200,
          wanderPage(url.searchParams.get("to"), Number(url.searchParams.get("after") ?? 0)),
        );
      if (req.method === "POST" && (url.pathname === "/continued" || url.pathname === "/saved"))
        return send(res, 200, `<h1>${url.pathname === "/saved" ? "Saved" : "Continued"}</h1>`);
      if (url.pathname === "/go") return redirect(res, url.searchParams.get("to") ?? "/");
      if (url.pathname === "/leaky")
        return send(res, 200, leakyPage(url.searchParams.get("kind") ?? "", payUrl));
      if (session === undefined) return redirect(res, "/login");
      if (url.pathname === "/account") return send(res, 200, pages.account(session.email));
      if (req.method === "POST" && url.pathname === "/otp") {
        const form = await readForm(req);
        if (form.get("code") !== otpCode) return send(res, 401, pages.otp("That code is not right"));
        session.otp = true;
        return redirect(res, "/checkout");
      }
      if (url.pathname === "/otp") return send(res, 200, pages.otp(""));
      if (url.pathname === "/checkout") {
        if (!session.otp) return redirect(res, "/otp");
        return send(res, 200, pages.checkout(`${payUrl}/pay?order=ord_1`));
      }
      if (url.pathname === "/logout") {
        sessions.clear();
        return redirect(res, "/login");
      }
      send(res, 404, "<h1>Not found</h1>");
    })().catch(() => send(res, 500, "<h1>Error</h1>"));
  });

  const provider = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://pay");
      seen.push(`${req.method} ${payHost}${url.pathname}`);
      if (req.method === "POST" && url.pathname === "/pay") {
        const form = await readForm(req);
        if (options.payDelayMs) await new Promise((resolve) => setTimeout(resolve, options.payDelayMs));
        payments += 1;
        cards.push(form.get("card") ?? "");
        if (form.get("sca") === "1") return redirect(res, "/3ds?order=ord_1");
        // A challenge whose URL does not give it away: only its text does.
        if (form.get("sca") === "2") return redirect(res, "/verify?order=ord_1");
        return redirect(res, "/paid");
      }
      if (url.pathname === "/pay") {
        return send(res, 200, paymentPage(url.searchParams.get("sca") ?? "0", shopUrl));
      }
      if (url.pathname === "/card-form") {
        return send(res, 200, cardFormPage(url.searchParams.get("sca") ?? "0", options.cardSubmitDelayMs));
      }
      if (url.pathname === "/3ds" || url.pathname === "/verify") return send(res, 200, pages.threeDs());
      if (url.pathname === "/paid") return send(res, 200, pages.paid());
      send(res, 404, "<h1>Not found</h1>");
    })().catch(() => send(res, 500, "<h1>Error</h1>"));
  });

  // A WebSocket that reaches the provider is seen (and hung up on).
  provider.on("upgrade", (req: IncomingMessage, socket: { destroy(): void }) => {
    seen.push(`UPGRADE ${payHost}${new URL(req.url ?? "/", "http://pay").pathname}`);
    socket.destroy();
  });
  const shopPort = await listen(shop, "127.0.0.1");
  shopUrl = `http://127.0.0.1:${shopPort}`;
  const payPort = await listen(provider, payHost);
  payUrl = `http://${payHost}:${payPort}`;
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${shopPort}`,
    payUrl,
    payHost,
    email,
    password,
    otpCode,
    payments: () => payments,
    cardsPaidWith: () => [...cards],
    requests: () => [...seen],
    close: async () => {
      await Promise.all([close(shop), close(provider)]);
    },
  };
}
