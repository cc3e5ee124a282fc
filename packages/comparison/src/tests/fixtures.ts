import type { ComparisonDocument, ComparisonRow } from "../domain/schema.js";
import { FIRST_SUCCESS_MODES, HOST_FAMILIES, ROW_STATUSES, STARTER_KINDS } from "../domain/vocabulary.js";

type RowSeed = Pick<
  ComparisonRow,
  "id" | "label" | "status" | "starterKind" | "hostFamily" | "firstSuccessMode" | "readOnly"
> &
  Partial<ComparisonRow>;

function row(seed: RowSeed): ComparisonRow {
  return {
    recommendedPack: `${seed.id}-pack`,
    needsRuntimeInvoke: seed.firstSuccessMode === "runtime-invoke",
    needsMcpTransport: seed.hostFamily === "mcp" || seed.firstSuccessMode === "read-only-mcp",
    bestEntry: `docs/${seed.id}/start-here.md`,
    smokeCommand: `npx vetted-smoke ${seed.id}`,
    copyReadyPackPath: `packs/${seed.id}`,
    compareAgainst: [],
    recommendedDocs: [`docs/${seed.id}/README.md`],
    bestWhen: [`You want ${seed.label} working in one sitting.`],
    avoidWhen: ["You cannot install anything on the machine."],
    safeClaims: [`${seed.label} runs its smoke command without network access.`],
    notYetSupported: [],
    ...seed,
  };
}

/** A realistic ten-row document: two derived filter groups and one hand-curated group. */
export function createSampleDocument(): ComparisonDocument {
  const comparisons: ComparisonRow[] = [
    row({
      id: "codex-builder",
      label: "Codex builder",
      status: "supported now",
      starterKind: "builder",
      hostFamily: "codex",
      firstSuccessMode: "runtime-invoke",
      readOnly: false,
      compareAgainst: ["claude-code-builder", "openclaw-builder"],
      bestWhen: ["You already run Codex in CI.", "You want generated code reviewed before it lands."],
    }),
    row({
      id: "codex-docs-skill",
      label: "Codex docs-sync skill",
      status: "partial",
      starterKind: "skill",
      hostFamily: "codex",
      firstSuccessMode: "docs-truth-sync",
      readOnly: true,
      compareAgainst: ["claude-code-docs-skill"],
      notYetSupported: ["Docs spread across several repositories."],
    }),
    row({
      id: "claude-code-builder",
      label: "Claude Code builder",
      status: "supported now",
      starterKind: "builder",
      hostFamily: "claude-code",
      firstSuccessMode: "runtime-invoke",
      readOnly: false,
      compareAgainst: ["codex-builder"],
    }),
    row({
      id: "claude-code-docs-skill",
      label: "Claude Code docs-sync skill",
      status: "supported now",
      starterKind: "skill",
      hostFamily: "claude-code",
      firstSuccessMode: "docs-truth-sync",
      readOnly: true,
      compareAgainst: ["codex-docs-skill"],
    }),
    row({
      id: "openclaw-builder",
      label: "OpenClaw builder",
      status: "planned",
      starterKind: "builder",
      hostFamily: "openclaw",
      firstSuccessMode: "runtime-invoke",
      readOnly: false,
      compareAgainst: ["codex-builder"],
      safeClaims: [],
      notYetSupported: ["Windows hosts.", "Self-hosted model endpoints."],
    }),
    row({
      id: "mcp-readonly-skill",
      label: "Read-only MCP skill",
      status: "supported now",
      starterKind: "skill",
      hostFamily: "mcp",
      firstSuccessMode: "read-only-mcp",
      readOnly: true,
      compareAgainst: ["mcp-diagnostics-skill"],
    }),
    row({
      id: "mcp-diagnostics-skill",
      label: "MCP provider diagnostics",
      status: "partial",
      starterKind: "skill",
      hostFamily: "mcp",
      firstSuccessMode: "provider-diagnostics",
      readOnly: true,
      recommendedDocs: ["docs/mcp-diagnostics-skill/README.md", "https://modelcontextprotocol.io/docs"],
    }),
    row({
      id: "plain-docs-skill",
      label: "Host-free docs check",
      status: "research only",
      starterKind: "skill",
      hostFamily: "none",
      firstSuccessMode: "docs-truth-sync",
      readOnly: true,
    }),
    row({
      id: "openclaw-diagnostics-skill",
      label: "OpenClaw provider diagnostics",
      status: "not now",
      starterKind: "skill",
      hostFamily: "openclaw",
      firstSuccessMode: "provider-diagnostics",
      readOnly: true,
      avoidWhen: ["You need it this quarter."],
    }),
    row({
      id: "claude-code-mcp-builder",
      label: "Claude Code MCP builder",
      status: "partial",
      starterKind: "builder",
      hostFamily: "claude-code",
      firstSuccessMode: "read-only-mcp",
      readOnly: false,
      compareAgainst: ["mcp-readonly-skill", "claude-code-builder"],
    }),
  ];
  return {
    $schema: "https://unpkg.com/@vetted/comparison/schema/2020-12.json",
    comparisonVersion: 1,
    filters: [
      deriveGroup("host", "Host", "hostFamily", comparisons),
      deriveGroup("kind", "Starter kind", "starterKind", comparisons),
      {
        id: "audience",
        label: "Good first pick",
        field: "status",
        values: [
          { id: "newcomers", label: "New to agents", comparisonIds: ["codex-builder", "mcp-readonly-skill"] },
          { id: "maintainers", label: "Docs maintainers", comparisonIds: ["claude-code-docs-skill"] },
        ],
      },
    ],
    comparisons,
  };
}

/** A filter group derived from a row field: one value per distinct field value, in first-seen order. */
export function deriveGroup(
  id: string,
  label: string,
  field: "hostFamily" | "starterKind" | "status" | "readOnly",
  rows: readonly ComparisonRow[],
): ComparisonDocument["filters"][number] {
  const values = new Map<string, string[]>();
  for (const r of rows) {
    const key = String(r[field]);
    const list = values.get(key) ?? [];
    list.push(r.id);
    values.set(key, list);
  }
  return {
    id,
    label,
    field,
    values: [...values].map(([value, comparisonIds]) => ({ id: value, label: value, comparisonIds })),
  };
}

function pick<T>(list: readonly T[], i: number): T {
  const value = list[i % list.length];
  if (value === undefined) throw new Error("empty list");
  return value;
}

/** A deterministic, valid and lint-clean document with `count` rows of realistic size. */
export function createLargeDocument(count: number): ComparisonDocument {
  const comparisons: ComparisonRow[] = [];
  for (let i = 0; i < count; i++) {
    const hostFamily = pick(HOST_FAMILIES, i);
    const firstSuccessMode = pick(FIRST_SUCCESS_MODES, i * 7);
    comparisons.push(
      row({
        id: `row-${i}`,
        label: `Starter ${i} for ${hostFamily}`,
        status: pick(ROW_STATUSES, i * 3),
        starterKind: pick(STARTER_KINDS, i),
        hostFamily,
        firstSuccessMode,
        readOnly: i % 3 === 0,
        compareAgainst: i === 0 ? [] : [`row-${i - 1}`, `row-${Math.floor(i / 2)}`],
        bestWhen: [`Teams of ${i % 9} that want ${firstSuccessMode} first.`, "You have an hour, not a week."],
        avoidWhen: ["Your repository forbids generated files.", `You are pinned to an old ${hostFamily}.`],
        safeClaims: ["Runs offline.", `Smoke test covers ${i % 5} commands.`],
        notYetSupported: i % 4 === 0 ? ["Monorepos with nested workspaces."] : [],
      }),
    );
  }
  return {
    $schema: "https://unpkg.com/@vetted/comparison/schema/2020-12.json",
    comparisonVersion: 3,
    filters: [
      deriveGroup("host", "Host", "hostFamily", comparisons),
      deriveGroup("kind", "Starter kind", "starterKind", comparisons),
      deriveGroup("status", "Status", "status", comparisons),
      deriveGroup("read-only", "Read-only", "readOnly", comparisons),
    ],
    comparisons,
  };
}

/** A deep copy of a JSON value, to mutate without touching the original. */
export function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
