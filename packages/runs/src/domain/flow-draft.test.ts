import { describe, expect, it } from "vitest";
import { buildFlowDraft } from "./flow-draft.js";
import type { RecordedTarget } from "./recording.js";

function target(key: string, extra: Partial<RecordedTarget> = {}): RecordedTarget {
  return { selectors: [{ kind: "css", value: key, score: 0.5 }], tag: "input", key, ...extra };
}

const url = "http://127.0.0.1:1/login";

describe("buildFlowDraft", () => {
  it("merges keystrokes into one type step per field, keeps secret references and drops focusing clicks", () => {
    const draft = buildFlowDraft(url, [
      { kind: "navigate", url, at: 0 },
      { kind: "click", url, target: target("#email", { editable: true }), at: 1 },
      { kind: "type", url, target: target("#email"), value: "a", at: 2 },
      { kind: "type", url, target: target("#email"), value: "ann@example.com", at: 3 },
      {
        kind: "type",
        url,
        target: target("#password", { input_type: "password" }),
        value: "${secrets.password}",
        secret: { kind: "password", name: "password" },
        at: 4,
      },
      { kind: "click", url, target: target("#submit", { tag: "button" }), at: 5 },
      { kind: "submit", url, by_click: true, submitter: target("#submit", { tag: "button" }), at: 6 },
      { kind: "navigate", url: "http://127.0.0.1:1/account", at: 100 },
    ]);
    expect(draft.steps.map((s) => s.type)).toEqual(["navigate", "type", "type", "click"]);
    expect(draft.steps[1]).toMatchObject({ type: "type", value: "ann@example.com" });
    expect(draft.steps[2]).toMatchObject({ type: "type", value: "${secrets.password}" });
    expect(draft.secrets).toEqual(["password"]);
    expect(new Set(draft.steps.map((s) => s.id)).size).toBe(draft.steps.length);
  });

  it("replays a form submitted with Enter as a click on its submit button", () => {
    const draft = buildFlowDraft(url, [
      { kind: "type", url, target: target("#q"), value: "shoes", at: 1 },
      { kind: "submit", url, by_click: false, submitter: target("#go", { tag: "button" }), at: 2 },
    ]);
    expect(draft.steps.map((s) => s.type)).toEqual(["navigate", "type", "click"]);
  });

  it("keeps a navigation no action caused as a navigate step", () => {
    const draft = buildFlowDraft(url, [
      { kind: "click", url, target: target("#x", { tag: "button" }), at: 0 },
      { kind: "navigate", url: "http://127.0.0.1:1/elsewhere", at: 60_000 },
      { kind: "select", url, target: target("#size", { tag: "select" }), option: "M", at: 60_001 },
    ]);
    expect(draft.steps.map((s) => s.type)).toEqual(["navigate", "click", "navigate", "select"]);
  });
});
