/** The HTML of the API shop's pages (see `startApiShop`). */

/**
 * The api-centric shop page: a static sign-in form; every action is a JSON request its script makes
 * (sign in → cart → checkout → one-time code → pay), with the bearer token, the CSRF token and the cart id
 * flowing from one answer into the next request.
 */
export const shopPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tea shop</title>
<link rel="stylesheet" href="/static/shop.css"></head><body>
<h1>Tea shop</h1>
<section id="signin"><h2>Sign in</h2>
<form id="login-form">
  <label for="email">Email</label><input id="email" name="email" type="email">
  <label for="password">Password</label><input id="password" name="password" type="password">
  <button type="submit">Sign in</button>
</form></section>
<section id="cart" hidden><h2>Cart</h2><button id="add" type="button">Add tea to cart</button>
<button id="checkout" type="button">Checkout</button><p id="cart-status"></p></section>
<section id="verify" hidden><h2>Verify</h2>
<form id="otp-form"><label for="code">One-time code</label><input id="code" name="code" autocomplete="one-time-code">
<button type="submit">Verify</button></form></section>
<section id="pay" hidden><h2>Pay</h2>
<form id="pay-form"><label for="card">Card number</label><input id="card" name="card" autocomplete="cc-number">
<button type="submit">Pay</button></form></section>
<p id="status" role="status"></p>
<script>
const state = { token: "", csrf: "", cart: "" };
const show = (id) => { for (const s of ["signin", "cart", "verify", "pay"]) document.getElementById(s).hidden = s !== id; };
const say = (text) => { document.getElementById("status").textContent = text; };
async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers.Authorization = "Bearer " + state.token;
  if (state.csrf) headers["X-CSRF-Token"] = state.csrf;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}
navigator.sendBeacon("/analytics/collect", JSON.stringify({ event: "view" }));
document.getElementById("login-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("POST", "/api/login", { email: document.getElementById("email").value, password: document.getElementById("password").value });
  if (r.status !== 200) return say("Wrong email or password");
  state.token = r.json.token; state.csrf = r.json.csrf_token; show("cart"); say("Signed in");
});
document.getElementById("add").addEventListener("click", async () => {
  const r = await api("POST", "/api/carts", { item: "tea", quantity: 1 });
  state.cart = r.json.cart_id; document.getElementById("cart-status").textContent = "Cart " + state.cart + ": 1 tea"; say("Added");
});
document.getElementById("checkout").addEventListener("click", async () => {
  const r = await api("POST", "/api/carts/" + state.cart + "/checkout", { shipping: "standard" });
  if (r.status === 200) { show("verify"); say("We sent you a code"); }
});
document.getElementById("otp-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("POST", "/api/carts/" + state.cart + "/otp", { code: document.getElementById("code").value });
  if (r.status !== 200) return say("That code is not right");
  show("pay"); say("Verified");
});
document.getElementById("pay-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("POST", "/api/carts/" + state.cart + "/pay", { card_number: document.getElementById("card").value });
  say(r.status === 200 ? "Payment successful: " + r.json.order_id : "Payment failed");
});
</script></body></html>`;

/**
 * The ui-centric page: its static HTML holds no form; a script builds one and signs each submission with a
 * value computed in the page, so replaying the request alone does not work.
 */
export const widgetPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gift card</title></head><body>
<h1>Send a gift card</h1><div id="app"></div>
<script>
const app = document.getElementById("app");
const form = document.createElement("form");
form.method = "post";
form.action = "/widget/submit";
form.innerHTML = '<label for="to">Recipient</label><input id="to" name="to">' +
  '<label for="amount">Amount</label><input id="amount" name="amount">' +
  '<input type="hidden" name="signature" id="signature">' +
  '<button type="submit">Send gift card</button>';
form.addEventListener("submit", () => {
  const seed = String(performance.now()) + Math.random();
  document.getElementById("signature").value = btoa(seed + document.getElementById("to").value);
});
app.appendChild(form);
</script></body></html>`;
