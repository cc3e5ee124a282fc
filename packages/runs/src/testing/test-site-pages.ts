/** The HTML of the test site's pages (see `startTestSite`). */

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The shop's pages. */
export const pages = {
  login: (error: string) =>
    page(
      "Sign in",
      `<h1>Sign in</h1>${error === "" ? "" : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/login">
  <label for="email">Email</label><input id="email" name="email" type="email" data-testid="email">
  <label for="password">Password</label><input id="password" name="password" type="password" data-testid="password">
  <button type="submit" data-testid="sign-in">Sign in</button>
</form>`,
    ),
  account: (email: string) =>
    page(
      "Your account",
      `<h1>Your account</h1><p id="who">Signed in as ${escapeHtml(email)}</p>
<script>localStorage.setItem("last_seen", "account");</script>
<a href="/otp">Go to checkout</a>`,
    ),
  otp: (error: string) =>
    page(
      "Verify",
      `<h1>Enter your one-time code</h1>${error === "" ? "" : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/otp">
  <label for="code">One-time code</label><input id="code" name="code" autocomplete="one-time-code" data-testid="otp">
  <button type="submit">Verify</button>
</form>`,
    ),
  checkout: (payLink: string) =>
    page(
      "Checkout",
      `<h1>Checkout</h1><p id="order" data-order-id="ord_1">Order ord_1: 1 × Tea, 12.00 EUR</p>
<label for="shipping">Shipping</label>
<select id="shipping" name="shipping"><option value="standard">Standard</option><option value="express">Express</option></select>
<a href="${escapeHtml(payLink)}">Continue to payment</a>`,
    ),
  threeDs: () =>
    page(
      "3-D Secure",
      `<h1>Authenticate your payment</h1><p>Your bank needs to confirm it is you (3DS challenge).</p>`,
    ),
  paid: () => page("Paid", `<h1>Payment successful</h1><p>Thank you, your order ord_1 is paid.</p>`),
  /** A page embedding a same-origin frame (`note`) and the provider's card form in a cross-origin frame (`card`). */
  frames: (cardFormUrl: string) =>
    page(
      "Frames",
      `<h1>Pay by card</h1>
<iframe name="note" src="/frames/note" width="600" height="120"></iframe>
<iframe name="card" src="${escapeHtml(cardFormUrl)}" width="600" height="220"></iframe>`,
    ),
  note: () =>
    page(
      "Note",
      `<form onsubmit="return false"><label for="note">Note</label><input id="note" name="note">
<button type="button" onclick="document.getElementById('saved').textContent = 'Saved: ' + document.getElementById('note').value">Save note</button></form>
<p id="saved"></p>`,
    ),
};

/** The ways a page sends a request by itself that {@link leakyPage} knows. */
export const LEAK_KINDS = ["fetch", "beacon", "form", "image", "websocket"] as const;

/**
 * A shop page that, while it loads, sends one request of `kind` to the payment provider on its own: a
 * `fetch` POST, a `sendBeacon`, a form POST into an iframe, an image GET, or a WebSocket.
 */
export function leakyPage(kind: string, payUrl: string): string {
  const pay = escapeHtml(payUrl);
  const ws = JSON.stringify(`${payUrl.replace(/^http/, "ws")}/socket`);
  const leak: Record<string, string> = {
    fetch: `<script>fetch(${JSON.stringify(`${payUrl}/collect`)}, { method: "POST", mode: "no-cors", body: "card=4242" }).catch(() => {});</script>`,
    beacon: `<script>navigator.sendBeacon(${JSON.stringify(`${payUrl}/collect`)}, "card=4242");</script>`,
    form: `<iframe name="sink"></iframe><form id="leak" target="sink" method="post" action="${pay}/collect"><input name="card" value="4242"></form><script>document.getElementById("leak").submit();</script>`,
    image: `<img alt="" src="${pay}/collect.png">`,
    websocket: `<script>new WebSocket(${ws});</script>`,
  };
  return page("Leaky", `<h1>Leaky</h1>${leak[kind] ?? ""}`);
}

/** The provider's card form, served in an iframe; `sca` "1" or "2": paying leads to a 3-D Secure challenge. */
export function cardFormPage(sca: string, submitDelayMs = 0): string {
  // A delay stands for a form that tokenises the card before it posts: the payment leaves after the click.
  const late =
    submitDelayMs > 0
      ? ` onsubmit="event.preventDefault(); setTimeout(() => this.submit(), ${Math.floor(submitDelayMs)})"`
      : "";
  return page(
    "Card",
    `<form method="post" action="/pay"${late}>
  <input type="hidden" name="sca" value="${sca === "1" || sca === "2" ? sca : "0"}">
  <label for="holder">Cardholder</label><input id="holder" name="holder">
  <label for="card">Card number</label><input id="card" name="card" autocomplete="cc-number">
  <button type="submit">Pay now</button>
</form>`,
  );
}

/**
 * The provider's payment page; `sca` "1" or "2": paying leads to a 3-D Secure challenge ("1": at `/3ds`,
 * "2": at `/verify`, told only by its text).
 */
export function paymentPage(sca: string, shopUrl: string): string {
  return page(
    "Pay",
    `<h1>Pay 12.00 EUR</h1>
<form method="post" action="/pay">
  <input type="hidden" name="sca" value="${sca === "1" || sca === "2" ? sca : "0"}">
  <label for="card">Card number</label><input id="card" name="card" autocomplete="cc-number">
  <a href="${escapeHtml(shopUrl)}/account">Back to the shop</a>
  <button type="submit">Pay now</button>
</form>`,
  );
}

/**
 * A shop page whose controls reach the provider though none is named like a payment: "Continue" submits
 * a form posting to the provider, "Next" POSTs to it from a script, "Details" is a shop link that
 * redirects there; "Save" posts to the shop itself.
 */
export function stepsPage(payUrl: string): string {
  const pay = escapeHtml(`${payUrl}/pay`);
  const next = `fetch(${JSON.stringify(`${payUrl}/pay`)}, { method: "POST", mode: "no-cors", body: "sca=0" }).catch(() => {})`;
  return page(
    "Steps",
    `<h1>Your order</h1>
<form method="post" action="${pay}"><input type="hidden" name="sca" value="0"><button type="submit">Continue</button></form>
<button type="button" onclick="${escapeHtml(next)}">Next</button>
<a href="/go?to=${encodeURIComponent(`${payUrl}/pay`)}">Details</a>
<form method="post" action="/saved"><button type="submit">Save</button></form>`,
  );
}

/**
 * A shop page with a "Continue" button (posting to the shop's `/continued`) that, when `to` is given,
 * navigates itself there after `afterMs`.
 */
export function wanderPage(to: string | null, afterMs: number): string {
  const go =
    to === null
      ? ""
      : `<script>setTimeout(() => { location.href = ${JSON.stringify(to)}; }, ${Math.floor(afterMs)});</script>`;
  return page(
    "Wander",
    `<h1>Wander</h1><form method="post" action="/continued"><button type="submit">Continue</button></form>${go}`,
  );
}

/** A shop page echoing what is typed into its password field "Secret word" (a field secret only by its type). */
export function revealPage(): string {
  return page(
    "Reveal",
    `<label for="word">Secret word</label><input id="word" name="word" type="password"
  oninput="document.getElementById('echo').textContent = 'You typed: ' + this.value">
<div id="echo"></div>`,
  );
}

/**
 * A page for taking over a paused run: a large button at a fixed place (x 100–300, y 100–200 CSS px) that
 * writes "Clicked by hand" into `#state` (page memory only: a reload or a reopened page loses it) and sets
 * `localStorage.clicked`; a note field at y 250–290; and a link to the payment provider at y 320–360.
 */
export function takeoverPage(payUrl: string): string {
  return page(
    "Takeover",
    `<style>body{margin:0}#press{position:absolute;left:100px;top:100px;width:200px;height:100px}
#note{position:absolute;left:100px;top:250px;width:200px;height:40px}
#pay{position:absolute;left:100px;top:320px;width:200px;height:40px;display:block}
#state{position:absolute;left:400px;top:100px}</style>
<button id="press" onclick="document.getElementById('state').textContent = 'Clicked by hand'; localStorage.setItem('clicked', 'yes')">Press me</button>
<input id="note" aria-label="Note" oninput="document.getElementById('typed').textContent = String(this.value.length)">
<a id="pay" href="${payUrl}/pay">Pay elsewhere</a>
<div id="state">Not clicked</div><div id="typed" style="position:absolute;left:400px;top:250px">0</div>`,
  );
}
