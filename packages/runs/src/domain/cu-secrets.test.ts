import { describe, expect, it } from "vitest";
import { isSecretField, secretInstructionShown } from "./cu-secrets.js";

describe("computer-use secrets", () => {
  it("hides the text an instruction types into a password or card field, and only that", () => {
    expect(secretInstructionShown('type "correct horse" into Password')).toBe(
      "type [redacted] into Password",
    );
    expect(secretInstructionShown("enter 4242 4242 4242 4242 in the Card number field")).toBe(
      "enter [redacted] in the Card number field",
    );
    // A secret holding " in " is hidden whole: everything up to the last field name goes.
    expect(secretInstructionShown('type "go in now" into Password')).toBe("type [redacted] into Password");
    expect(secretInstructionShown('type "ada" into Email')).toBeUndefined();
    expect(secretInstructionShown("click Sign in")).toBeUndefined();
  });

  it("knows a secret field by its type, autocomplete or name", () => {
    expect(isSecretField({ name: "Secret", type: "password" })).toBe(true);
    expect(isSecretField({ name: "Number", autocomplete: "cc-number" })).toBe(true);
    expect(isSecretField({ name: "Code", attributes: ["cvc"] })).toBe(true);
    expect(isSecretField({ name: "IBAN" })).toBe(true);
    expect(
      isSecretField({ name: "Email", type: "email", autocomplete: "email", attributes: ["email"] }),
    ).toBe(false);
  });
});
