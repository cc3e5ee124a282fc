import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runReadmeExample } from "../../../tools/readme-example.js";
import {
  CONFLICT_TRANSITIONS,
  FINISHED_JOB_STATUSES,
  INITIAL_STATUS,
  JOB_TRANSITIONS,
  ROW_TRANSITIONS,
} from "./domain/transitions.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(packageDir, "README.md"), "utf8");

/** The edges of each mermaid state diagram of the README, by the table its `%% table:` line names. */
function diagrams(): Map<string, { edges: string[]; initial: string[]; final: string[] }> {
  const out = new Map<string, { edges: string[]; initial: string[]; final: string[] }>();
  for (const block of readme.matchAll(/```mermaid\n([\s\S]*?)```/g)) {
    const body = block[1] ?? "";
    const table = /%% table: (\w+)/.exec(body)?.[1];
    if (table === undefined) continue;
    const parsed = { edges: [] as string[], initial: [] as string[], final: [] as string[] };
    for (const m of body.matchAll(/^\s*(\[\*\]|\w+) --> (\[\*\]|\w+)(?::.*)?$/gm)) {
      const [from, to] = [m[1] ?? "", m[2] ?? ""];
      if (from === "[*]") parsed.initial.push(to);
      else if (to === "[*]") parsed.final.push(from);
      else parsed.edges.push(`${from} --> ${to}`);
    }
    out.set(table, parsed);
  }
  return out;
}

function edgesOf(table: Record<string, readonly string[]>): string[] {
  return Object.entries(table).flatMap(([from, tos]) => tos.map((to) => `${from} --> ${to}`));
}

describe("the README", () => {
  const found = diagrams();
  const cases = [
    {
      name: "JOB_TRANSITIONS",
      table: JOB_TRANSITIONS,
      initial: INITIAL_STATUS.job,
      final: FINISHED_JOB_STATUSES,
    },
    { name: "ROW_TRANSITIONS", table: ROW_TRANSITIONS, initial: INITIAL_STATUS.row, final: [] },
    {
      name: "CONFLICT_TRANSITIONS",
      table: CONFLICT_TRANSITIONS,
      initial: INITIAL_STATUS.conflict,
      final: [],
    },
  ] as const;
  for (const c of cases) {
    it(`draws ${c.name} exactly as the table says`, () => {
      const diagram = found.get(c.name);
      expect(diagram, `no mermaid diagram marked %% table: ${c.name}`).toBeDefined();
      expect([...(diagram?.edges ?? [])].sort()).toEqual(edgesOf(c.table).sort());
      expect(diagram?.initial).toEqual([c.initial]);
      expect([...(diagram?.final ?? [])].sort()).toEqual([...c.final].sort());
    });
  }

  it("runs its TypeScript example verbatim (in a temp directory) and prints what its comments say", () => {
    const run = runReadmeExample(packageDir, 60_000);
    expect(run.expected.length).toBeGreaterThan(0);
    expect(run.printed).toEqual(run.expected);
  }, 90_000);
});
