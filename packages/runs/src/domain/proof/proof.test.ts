import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { releaseBrief } from "./brief.js";
import type { FactEvent, FactEvidence, RunFacts } from "./facts.js";
import { buildReport } from "./report.js";
import { reviewFindings } from "./review.js";

const dir = dirname(fileURLToPath(import.meta.url));

function run(over: Partial<RunFacts> = {}): RunFacts {
  return {
    id: "run_a",
    templateId: "tpl_1",
    status: "success",
    reason: null,
    error: null,
    steps: [{ id: "open", type: "navigate", url: "http://127.0.0.1/", timeout_ms: 1000 }],
    createdAt: 1000,
    finishedAt: 3000,
    events: [],
    evidence: [],
    ...over,
  };
}

const finished = (stepId: string, ms: number, outcome = "completed"): FactEvent => ({
  type: "step_finished",
  data: { step_id: stepId, outcome, duration_ms: ms },
  at: 0,
});
const shot = (stepId: string, screenshots: Record<string, string>, detail = {}): FactEvidence => ({
  stepId,
  stepType: "navigate",
  outcome: "completed",
  durationMs: 10,
  detail,
  screenshots,
});

describe("domain/proof", () => {
  it("is pure: no engine, store, node: module, fetch or timer", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(files).toContain("report.ts");
    for (const f of files) {
      expect(readFileSync(join(dir, f), "utf8")).not.toMatch(
        /from\s+["'](\.\.\/\.\.\/(engine|store|steps)\/|node:|drizzle-orm|@libsql)|\bfetch\s*\(|setTimeout\s*\(/,
      );
    }
  });

  it("counts evidence coverage and fails a strict campaign on missing critical evidence", () => {
    const covered = run({ evidence: [shot("open", { before: "a", after: "b" })] });
    const missing = run({ id: "run_b", evidence: [shot("open", { after: "b" })] });
    const secret = run({ id: "run_c", evidence: [shot("open", {}, { screenshots_skipped: "secret" })] });
    const report = buildReport([covered, missing, secret], "strict");
    expect(report.evidence).toEqual({ steps: 2, with_before_after: 1, coverage: 0.5, critical_missing: 1 });
    expect(report.status).toBe("failed");
    expect(report.violations).toEqual([
      expect.objectContaining({ code: "CRITICAL_EVIDENCE_MISSING", run_id: "run_b", step_id: "open" }),
    ]);
    expect(buildReport([covered, missing], "standard").status).toBe("passed");
    expect(
      buildReport([run({ status: "running", finishedAt: null })], "standard").violations.map((v) => v.code),
    ).toEqual(["RUN_NOT_FINISHED", "NO_VALID_RUN"]);
  });

  it("finds slow steps over the template's p95, expired gates, retries and provider pauses", () => {
    const facts = run({
      events: [
        {
          type: "gate_opened",
          data: {
            step_id: "pay",
            reason_code: "provider_protected_payment_step",
            provider_domain: "stripe.com",
          },
          at: 0,
        },
        { type: "lease_expired", data: {}, at: 0 },
        finished("open", 900),
        { type: "gate_expired", data: { step_id: "code", reason_code: "otp_required" }, at: 0 },
      ],
    });
    const findings = reviewFindings(facts, new Map([["open", [100, 120, 110, 130]]]));
    expect(findings.map((f) => [f.kind, f.severity])).toEqual([
      ["gate_expired", "high"],
      ["slow_step", "medium"],
      ["retry", "medium"],
      ["protected_provider_pause", "info"],
    ]);
    expect(reviewFindings(facts, new Map([["open", [100, 120]]])).some((f) => f.kind === "slow_step")).toBe(
      false,
    );
    expect(releaseBrief(facts, findings, null).recommendation).toBe("blocked");
    expect(releaseBrief(run({ status: "waiting_otp", finishedAt: null }), [], null).recommendation).toBe(
      "insufficient-evidence",
    );
  });
});
