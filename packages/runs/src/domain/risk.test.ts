import { describe, expect, it } from "vitest";
import { classifyRisk } from "./risk.js";

const base = { instruction: "click Sign in", protectedDomains: ["pay.example", "127.0.0.2"] };

describe("classifyRisk", () => {
  it("rates a plain click medium and a scroll low, neither needing confirmation", () => {
    expect(
      classifyRisk({ ...base, name: "click", args: { name: "Sign in" }, targetName: "Sign in" }),
    ).toMatchObject({
      level: "medium",
      require_confirmation: false,
    });
    expect(classifyRisk({ ...base, name: "scroll", args: { direction: "down" } }).level).toBe("low");
  });

  it("rates clicking a Pay now button critical", () => {
    const d = classifyRisk({
      ...base,
      instruction: "click Pay now",
      name: "click",
      args: {},
      targetName: "Pay now",
    });
    expect(d).toMatchObject({ level: "critical", require_confirmation: true, because: "critical_action" });
  });

  it("rates any action in a frame on a protected provider domain critical", () => {
    const d = classifyRisk({ ...base, name: "scroll", args: {}, frameUrl: "http://127.0.0.2:8080/pay" });
    expect(d).toMatchObject({ level: "critical", provider_domain: "127.0.0.2" });
  });

  it("rates typing a risky word high", () => {
    const d = classifyRisk({
      ...base,
      instruction: "type x into Search",
      name: "type",
      args: { text: "delete my account" },
    });
    expect(d).toMatchObject({ level: "high", require_confirmation: true });
  });
});

describe("classifyRisk by what an action reaches", () => {
  const click = (targetName: string, targets: string[]) =>
    classifyRisk({
      ...base,
      instruction: `click ${targetName}`,
      name: "click",
      args: {},
      targetName,
      targets,
    });

  it("rates a Continue button of a form posting to a provider critical, whatever its name", () => {
    expect(click("Continue", ["http://127.0.0.2:8080/pay"])).toMatchObject({
      level: "critical",
      require_confirmation: true,
      because: "protected_target",
      provider_domain: "127.0.0.2",
    });
  });

  it("rates a Details link whose redirect names the provider in its query critical", () => {
    const d = click("Details", ["http://127.0.0.1:8080/go?to=http%3A%2F%2Fpay.example%2Fpay"]);
    expect(d).toMatchObject({ level: "critical", provider_domain: "pay.example" });
  });

  it("leaves a Continue button posting to the shop itself medium", () => {
    expect(click("Continue", ["http://127.0.0.1:8080/next?step=2"])).toMatchObject({
      level: "medium",
      require_confirmation: false,
    });
  });
});
