import { parseInput } from "../../core/persist.js";
import { releaseBrief as buildBrief } from "../../domain/proof/brief.js";
import { compareRuns as compare } from "../../domain/proof/compare.js";
import { assessFeasibility, type HostVerdict, literalUrlOf } from "../../domain/proof/feasibility.js";
import { narrativePrompt, reviewFindings } from "../../domain/proof/review.js";
import {
  type Feasibility,
  type ReleaseBrief,
  RunCompareInput,
  type RunComparison,
  type RunReview,
  type SimilarFailureMatch,
} from "../../domain/proof/schemas.js";
import { explainMatches } from "../../domain/proof/similar.js";
import { InvalidInputError } from "../../kernel/errors.js";
import type { OutboundDecision } from "../../kernel/outbound.js";
import type { ProofResources } from "./resources.js";
import { narrate } from "./review-model.js";
import { loadRunFacts, loadTemplateSteps, templateHistory } from "./run-facts.js";

/** Compares two runs. @throws RUN_NOT_FOUND, REQUEST_INVALID */
export async function compareRuns(p: ProofResources, input: unknown): Promise<RunComparison> {
  const body = parseInput(RunCompareInput, input, "REQUEST_INVALID", "The comparison request");
  const [left, right] = await loadRunFacts(p.db, [body.left_run_id, body.right_run_id]);
  if (left === undefined || right === undefined) throw new Error("unreachable: two facts for two ids");
  return compare(left, right);
}

async function findingsOf(p: ProofResources, runId: string) {
  const [run] = await loadRunFacts(p.db, [runId]);
  if (run === undefined) throw new Error("unreachable: facts for one id");
  const history = run.templateId === null ? new Map() : await templateHistory(p.db, run.templateId, run.id);
  return { run, findings: reviewFindings(run, history) };
}

/**
 * A run's review: its deterministic findings and, with a review model configured, a narrative labelled as
 * generated (or, when the model fails or times out, why there is none: the review is answered either way).
 * @throws RUN_NOT_FOUND
 */
export async function reviewRun(p: ProofResources, runId: string): Promise<RunReview> {
  const { run, findings } = await findingsOf(p, runId);
  const narrative =
    p.reviewModel === undefined ? null : await narrate(p.reviewModel, narrativePrompt(run, findings));
  return { run_id: run.id, status: run.status, findings, narrative };
}

/** A run's release brief, against a baseline run when one is given. @throws RUN_NOT_FOUND */
export async function releaseBrief(
  p: ProofResources,
  runId: string,
  baselineRunId?: string | undefined,
): Promise<ReleaseBrief> {
  const { run, findings } = await findingsOf(p, runId);
  let comparison: RunComparison | null = null;
  if (baselineRunId !== undefined) {
    const [baseline] = await loadRunFacts(p.db, [baselineRunId]);
    if (baseline !== undefined) comparison = compare(baseline, run);
  }
  return buildBrief(run, findings, comparison);
}

/** The failed or blocked runs most like this one's failure, with why each matched. @throws RUN_NOT_FOUND, REQUEST_INVALID */
export async function similarFailures(
  p: ProofResources,
  runId: string,
  limit = 5,
): Promise<SimilarFailureMatch[]> {
  return explainMatches(await p.similarFailures(runId, limit));
}

function verdictOf(d: OutboundDecision): HostVerdict {
  if (d.kind === "denied") return { kind: "denied", host: d.host, rule: d.rule };
  if (d.kind === "unresolved") return { kind: "unresolved", host: d.host, message: d.message };
  return { kind: "allowed" };
}

/**
 * Whether a template can run against `target` (an absolute http(s) URL), judged by its steps and gates,
 * the outbound policy (which resolves the target's name) and whether a browser is available.
 * @throws TEMPLATE_NOT_FOUND, FLOW_NOT_FOUND, REQUEST_INVALID (target)
 */
export async function feasibility(
  p: ProofResources,
  templateId: string,
  target: string,
): Promise<Feasibility> {
  let url: URL | undefined;
  try {
    url = new URL(target);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.hostname === "") {
    throw new InvalidInputError("REQUEST_INVALID", "target must be an absolute http(s) URL.", { target });
  }
  const { template, steps } = await loadTemplateSteps(p.db, templateId);
  const stepVerdicts = new Map<string, HostVerdict>();
  for (const step of steps) {
    const literal = literalUrlOf(step);
    if (literal !== undefined && !stepVerdicts.has(literal)) {
      stepVerdicts.set(literal, verdictOf(await p.outbound.decide(literal, p.protectedDomains)));
    }
  }
  return assessFeasibility({
    templateId: template.id,
    steps,
    policies: template.policies,
    target: url.toString(),
    targetVerdict: verdictOf(await p.outbound.decide(url.toString(), p.protectedDomains)),
    stepVerdicts,
    protectedDomains: p.protectedDomains,
    browserAvailable: p.browserAvailable(),
  });
}
