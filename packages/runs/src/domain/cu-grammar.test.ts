import { describe, expect, it } from "vitest";
import { parseAriaSnapshot } from "./aria-snapshot.js";
import { planLocally } from "./cu-grammar.js";

const page = "http://127.0.0.1:1/login";
const nodes = parseAriaSnapshot(
  [
    '- heading "Sign in" [level=1]',
    '- textbox "Email"',
    '- textbox "Password"',
    '- combobox "Size":',
    '  - option "M"',
    '- button "Sign in"',
    '- link "Forgot password?"',
  ].join("\n"),
  page,
);

describe("planLocally", () => {
  it("resolves click <name> against the accessibility tree", () => {
    const plan = planLocally({ instruction: "click Sign in", pageUrl: page, nodes });
    expect(plan).toEqual({
      ok: true,
      action: expect.objectContaining({
        name: "click",
        args: { role: "button", name: "Sign in", frame_index: 0 },
      }),
    });
  });

  it("reads type, select, press, scroll and open", () => {
    expect(
      planLocally({ instruction: 'type "ann@example.com" into the Email field', pageUrl: page, nodes }),
    ).toMatchObject({
      ok: true,
      action: { name: "type", args: { field: "Email", text: "ann@example.com" } },
    });
    expect(planLocally({ instruction: "select M in Size", pageUrl: page, nodes })).toMatchObject({
      action: { name: "select", args: { option: "M", field: "Size" } },
    });
    expect(planLocally({ instruction: "press enter", pageUrl: page, nodes })).toMatchObject({
      action: { args: { key: "Enter" } },
    });
    expect(planLocally({ instruction: "scroll up", pageUrl: page, nodes })).toMatchObject({
      action: { name: "scroll" },
    });
    expect(planLocally({ instruction: "open http://127.0.0.1:1/x", pageUrl: page, nodes })).toMatchObject({
      action: { name: "open", args: { url: "http://127.0.0.1:1/x" } },
    });
  });

  it("names the grammar for an instruction outside it, and the page's buttons for a name not there", () => {
    const outside = planLocally({ instruction: "make me a sandwich", pageUrl: page, nodes });
    expect(outside.ok).toBe(false);
    if (!outside.ok) expect(outside.message).toContain("type <text> into <field>");
    const missing = planLocally({ instruction: "click Pay now", pageUrl: page, nodes });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.message).toContain('"Sign in"');
    expect(planLocally({ instruction: "open file:///etc/passwd", pageUrl: page, nodes }).ok).toBe(false);
  });
});
