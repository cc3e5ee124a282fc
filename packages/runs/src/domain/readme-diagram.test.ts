import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canTransition, END_REASONS, REASON_CODES, RUN_STATUSES, type RunStatus } from "./status.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const diagram = /```mermaid\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";

describe("the README's run state diagram", () => {
  it("draws only transitions the state machine allows", () => {
    const edges = [...diagram.matchAll(/^\s*(\w+) --> (\w+)/gm)].map((m) => [m[1], m[2]] as const);
    expect(edges.length).toBeGreaterThan(10);
    const statuses = new Set<string>(RUN_STATUSES);
    for (const [from, to] of edges) {
      expect(statuses.has(from ?? "") && statuses.has(to ?? "")).toBe(true);
      expect(canTransition(from as RunStatus, to as RunStatus)).toBe(true);
    }
  });

  it("draws every transition the state machine allows", () => {
    const drawn = new Set([...diagram.matchAll(/^\s*(\w+) --> (\w+)/gm)].map((m) => `${m[1]} -> ${m[2]}`));
    const allowed = RUN_STATUSES.flatMap((from) =>
      RUN_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from} -> ${to}`),
    );
    expect(allowed.filter((edge) => !drawn.has(edge))).toEqual([]);
  });

  it("names every end reason and the step_outcome_unknown pause", () => {
    for (const reason of END_REASONS.filter((r) => r !== "cancelled")) expect(diagram).toContain(reason);
    expect(REASON_CODES).toContain("step_outcome_unknown");
    expect(diagram).toContain("step_outcome_unknown");
  });
});
