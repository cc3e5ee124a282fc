import { describe, expect, it } from "vitest";
import { interpolate, references, type Scope } from "./interpolate.js";

const scope: Scope = {
  params: { shop: "http://shop", qty: 2 },
  vars: { cart: { id: "c1" } },
  secrets: { card: "4242" },
  gate: { otp_code: "123456" },
};

describe("interpolate", () => {
  it("splices references into longer strings", () => {
    expect(interpolate("${params.shop}/cart?q=${params.qty}", scope)).toEqual({
      ok: true,
      value: "http://shop/cart?q=2",
    });
  });

  it("keeps the type of a value that is exactly one reference", () => {
    expect(interpolate({ n: "${params.qty}", cart: "${vars.cart}" }, scope)).toEqual({
      ok: true,
      value: { n: 2, cart: { id: "c1" } },
    });
  });

  it("resolves secrets and gate values deep inside arrays", () => {
    expect(interpolate(["${secrets.card}", { otp: "${gate.otp_code}" }], scope)).toEqual({
      ok: true,
      value: ["4242", { otp: "123456" }],
    });
  });

  it("names the first reference that does not resolve", () => {
    expect(interpolate({ a: "x ${vars.missing} y" }, scope)).toEqual({
      ok: false,
      reference: "${vars.missing}",
    });
    expect(interpolate("${gate.input_text}", scope)).toEqual({ ok: false, reference: "${gate.input_text}" });
  });

  it("leaves unknown namespaces and plain values alone", () => {
    expect(interpolate({ a: "${env.HOME}", b: 3, c: null }, scope)).toEqual({
      ok: true,
      value: { a: "${env.HOME}", b: 3, c: null },
    });
  });

  it("tells whether a step consumes a gate value", () => {
    expect(references({ body: { otp: "${gate.otp_code}" } }, "gate", "otp_code")).toBe(true);
    expect(references({ body: { otp: "${vars.otp_code}" } }, "gate", "otp_code")).toBe(false);
  });
});
