import type { Page } from "playwright-core";
import { matchProtectedDomain } from "../domain/providers.js";
import type { Step } from "../domain/steps.js";
import { RunsError } from "../errors.js";
import type { StepOutcome, StepType } from "../steps/step-type.js";
import type { PageGuard } from "./browser-runtime.js";
import { type EvidenceDraft, recordEvidence, writeScreenshot } from "./evidence.js";
import { createRedactor } from "./redactor.js";
import type { RunsResources } from "./resources.js";
import type { RunRow } from "./views.js";

const THREE_DS_URL = /3ds|three[-_]?d[-_]?secure|challenge|\/acs\b/i;
const THREE_DS_TEXT = /authenticate your payment|3-?D Secure|\b3DS\b/i;

/** A 3-D Secure challenge on the page (a frame URL or the page text), or undefined. */
async function threeDsOn(page: Page): Promise<{ signal: string; url: string } | undefined> {
  for (const frame of page.frames()) {
    const url = frame.url();
    if (/^https?:/i.test(url) && THREE_DS_URL.test(new URL(url).pathname + new URL(url).search)) {
      return { signal: `frame URL ${new URL(url).pathname}`, url };
    }
  }
  const text = await page
    .locator("body")
    .innerText({ timeout: 1_000 })
    .catch(() => "");
  const hit = THREE_DS_TEXT.exec(text);
  return hit === null ? undefined : { signal: `page text "${hit[0]}"`, url: page.url() };
}

/** Whether the step (as written, before interpolation) puts a secret or a one-time code on the page. */
function holdsSecret(step: Step | undefined): boolean {
  const text = JSON.stringify(step ?? null);
  return text.includes("${secrets.") || text.includes("${gate.otp_code}");
}

function failure(
  stepId: string,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): StepOutcome {
  return {
    kind: "failed",
    reason: "step_failed",
    message: `${stepId}: ${code}: ${message}`,
    expectation: false,
    detail: { code, ...extra },
  };
}

/** The outcome of a step whose page refused a request or stopped a navigation to a protected provider. */
function guarded(stepId: string, guard: PageGuard, outcome: StepOutcome): StepOutcome {
  if (guard.blockedProvider !== undefined)
    return { kind: "protected", provider_domain: guard.blockedProvider };
  if (guard.denied !== undefined && outcome.kind === "failed") {
    const d = guard.denied;
    return failure(stepId, "OUTBOUND_DENIED", `requests to ${d.host} are denied (${d.rule})`, {
      host: d.host,
    });
  }
  return outcome;
}

function untilAborted(signal: AbortSignal): Promise<never> {
  const p = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  p.catch(() => undefined);
  return p;
}

function errorOutcome(stepId: string, err: unknown): StepOutcome {
  if (err instanceof RunsError) {
    const retry = err.code === "BROWSER_CRASHED" ? { retryable: true } : {};
    return failure(stepId, err.code, err.message, retry);
  }
  const message = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
  return { kind: "failed", reason: "step_failed", message: `${stepId}: ${message}`, expectation: false };
}

/**
 * Executes a browser step in the run's page: opens (or restores) the page, takes a screenshot before and
 * after (not for a step typing a secret or a code), executes under the run's signal and the lease's (a
 * crashed browser fails the step with `BROWSER_CRASHED`, retryable), turns a stopped navigation to a
 * protected provider into a pause, notices a 3-D Secure challenge the step brought up, and stores the
 * evidence (timing, selector used, fallback trail, URLs, screenshots).
 */
export async function runBrowserStep(
  r: RunsResources,
  type: StepType<Step>,
  step: Step,
  row: RunRow,
  signal: AbortSignal,
): Promise<{ outcome: StepOutcome; durationMs: number }> {
  const t0 = performance.now();
  const startedAt = r.now();
  let held: Awaited<ReturnType<RunsResources["browserRuntime"]["open"]>>;
  try {
    held = await r.browserRuntime.open(row, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    return { outcome: errorOutcome(step.id, err), durationMs: Math.round(performance.now() - t0) };
  }
  const { lease, guard } = held;
  const page = lease.page;
  const approved = row.gate.approved_steps.includes(step.id);
  Object.assign(guard, { approved, blockedProvider: undefined, denied: undefined });
  const evidenceId = r.newId("ev");
  const screenshots: Record<string, string> = {};
  const secret = holdsSecret(row.steps[row.cursor]);
  const shoot = async (name: string) => {
    screenshots[name] = await writeScreenshot(r.dataDir, row.id, evidenceId, name, page);
  };
  const acts = step.type === "navigate" || step.type === "click";
  const urlBefore = page.url();
  let outcome: StepOutcome;
  try {
    const challengeBefore = acts ? await threeDsOn(page) : undefined;
    if (!secret) await shoot("before");
    const browser = {
      page,
      approved,
      protectedDomainOf: (url: string) => matchProtectedDomain(url, r.protectedDomains),
      screenshot: shoot,
    };
    const ctx = {
      runId: row.id,
      stepId: step.id,
      signal,
      retries: 0,
      fetch: r.fetch,
      startedAt,
      now: r.now,
      browser,
    };
    outcome = guarded(
      step.id,
      guard,
      await Promise.race([type.execute(step, ctx), untilAborted(signal), untilAborted(lease.signal)]),
    );
    if (outcome.kind === "completed" && acts && challengeBefore === undefined) {
      const challenge = await threeDsOn(page);
      if (challenge !== undefined) outcome = { ...outcome, threeDs: challenge };
    }
    if (!secret && !lease.signal.aborted) await shoot("after");
  } catch (err) {
    if (signal.aborted) throw err;
    outcome = guarded(
      step.id,
      guard,
      errorOutcome(step.id, lease.signal.aborted ? lease.signal.reason : err),
    );
  }
  guard.approved = false;
  const urlNow = lease.signal.aborted ? "" : page.url();
  const resumeUrl = outcome.kind === "protected" ? urlBefore : urlNow;
  if (/^https?:/i.test(resumeUrl)) guard.resumeUrl = resumeUrl;
  const durationMs = Math.round(performance.now() - t0);
  const draft: EvidenceDraft = {
    id: evidenceId,
    stepId: step.id,
    stepType: step.type,
    outcome: outcome.kind,
    startedAt,
    durationMs,
    detail: {
      url_before: urlBefore,
      url_after: lease.signal.aborted ? null : page.url(),
      ...(secret ? { screenshots_skipped: "the step puts a secret or a one-time code on the page" } : {}),
      ...(outcome.kind === "gate" ? {} : outcome.detail),
      ...(outcome.kind === "protected" ? { provider_domain: outcome.provider_domain } : {}),
      ...(outcome.kind === "completed" && outcome.threeDs !== undefined ? { three_ds: outcome.threeDs } : {}),
    },
    screenshots,
  };
  // A secret or code may show in a URL or a selector's text: evidence is stored redacted.
  const opened = r.vault.open(row);
  const known = [...Object.values(opened.secrets), ...(opened.otpCode === undefined ? [] : [opened.otpCode])];
  draft.detail = createRedactor(known).redactDeep(draft.detail) as Record<string, unknown>;
  await recordEvidence(r, row.id, draft);
  return { outcome, durationMs };
}
