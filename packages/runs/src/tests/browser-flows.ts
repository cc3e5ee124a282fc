import type { Selector } from "../domain/browser-steps.js";
import type { TestSite } from "../testing.js";

/** A target by selector candidates, tried in order. */
export function target(...selectors: Selector[]) {
  return { selectors };
}

/** The login steps on the test site: navigate, type email, type the password (a secret param), sign in. */
export function loginSteps(site: TestSite) {
  return [
    { id: "open", type: "navigate", url: `${site.url}/login` },
    {
      id: "email",
      type: "type",
      target: target({ kind: "label", value: "Email" }),
      value: "${params.email}",
    },
    {
      id: "password",
      type: "type",
      target: target({ kind: "label", value: "Password" }),
      value: "${secrets.password}",
    },
    { id: "sign_in", type: "click", target: target({ kind: "role", value: "button", name: "Sign in" }) },
  ] as const;
}

/** The checkout after login: OTP gate, code typed into the page, checkout, payment on the protected host. */
export function checkoutSteps() {
  return [
    { id: "to_otp", type: "click", target: target({ kind: "text", value: "Go to checkout" }) },
    { id: "code", type: "otp_gate", prompt: "Enter the code we sent" },
    {
      id: "type_code",
      type: "type",
      target: target({ kind: "label", value: "One-time code" }),
      value: "${gate.otp_code}",
    },
    { id: "verify", type: "click", target: target({ kind: "role", value: "button", name: "Verify" }) },
    { id: "at_checkout", type: "assert", url: "/checkout", text: "Order ord_1" },
    {
      id: "shipping",
      type: "select",
      target: target({ kind: "label", value: "Shipping" }),
      option: "Express",
    },
    {
      id: "order",
      type: "extract",
      target: target({ kind: "css", value: "#order" }),
      attr: "data-order-id",
      var: "order_id",
    },
    {
      id: "to_pay",
      type: "click",
      target: target({ kind: "role", value: "link", name: "Continue to payment" }),
    },
    { id: "pay", type: "click", target: target({ kind: "role", value: "button", name: "Pay now" }) },
    { id: "paid", type: "assert", text: "Payment successful" },
  ] as const;
}
