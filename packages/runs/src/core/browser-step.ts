import type { CDPSession, Frame, Page } from "playwright-core";
import { lateRequestWindowMs } from "../domain/browser-steps.js";
import { matchProtectedDomain } from "../domain/providers.js";
import type { Step } from "../domain/steps.js";
import { stepAttempt } from "../domain/transitions.js";
import { RunsError } from "../kernel/errors.js";
import { createRedactor } from "../kernel/redactor.js";
import { captureAcross } from "./after-shot.js";
import type { OutboundGuard } from "./browser/network-guard.js";
import type { Held } from "./browser-runtime.js";
import { captureJpeg, type EvidenceDraft, writeScreenshot } from "./evidence.js";
import type { RunsResources } from "./resources.js";
import type { StepOutcome, StepType } from "./steps/step-type.js";
import type { RunRow } from "./views.js";

const THREE_DS_URL = /3ds|three[-_]?d[-_]?secure|challenge|\/acs\b/i;
const THREE_DS_TEXT = /authenticate your payment|3-?D Secure|\b3DS\b/i;

const BODY_TEXT = `document.body ? document.body.textContent : ""`;

/**
 * The text of a frame's body ("" when it has none, went away, or does not answer within a second). The
 * main frame's is read through the page's CDP session when there is one: a bare `Runtime.evaluate`, where
 * Playwright's first evaluation in a new document would first install its helper script there.
 */
function frameText(frame: Frame, cdp: Promise<CDPSession> | undefined): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(""), 1_000);
  });
  const read: Promise<unknown> =
    cdp !== undefined && frame.parentFrame() === null
      ? cdp
          .then((session) => session.send("Runtime.evaluate", { expression: BODY_TEXT, returnByValue: true }))
          .then((answer) => answer.result.value)
      : frame.evaluate(BODY_TEXT);
  const text = read
    .then((t) => (typeof t === "string" ? t : ""))
    .catch(() => "")
    .finally(() => clearTimeout(timer));
  return Promise.race([text, late]);
}

/** A 3-D Secure challenge on the page (a frame's URL, or the text of the page or of a frame), or undefined. */
async function threeDsOn(
  page: Page,
  cdp: Promise<CDPSession> | undefined,
): Promise<{ signal: string; url: string } | undefined> {
  if (!/^https?:/i.test(page.url())) return undefined;
  for (const frame of page.frames()) {
    const url = frame.url();
    if (!/^https?:/i.test(url)) continue;
    const { pathname, search } = new URL(url);
    if (THREE_DS_URL.test(pathname + search)) return { signal: `frame URL ${pathname}`, url };
  }
  // The text of every frame (a challenge often shows in the provider's iframe), all at once: a plain
  // evaluation of textContent needs no layout, nor Playwright's selector engine in a new document.
  const frames = page.frames().filter((f) => /^https?:/i.test(f.url()));
  const texts = await Promise.all(frames.map((frame) => frameText(frame, cdp)));
  for (const [i, text] of texts.entries()) {
    const hit = THREE_DS_TEXT.exec(text);
    const frame = frames[i];
    if (hit === null || frame === undefined) continue;
    const where = frame === page.mainFrame() ? "page" : "frame";
    return { signal: `${where} text "${hit[0]}"`, url: frame.url() };
  }
  return undefined;
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

/**
 * The outcome of a step whose page refused a request or stopped a navigation to a protected provider. What
 * the guard stopped is taken in the same tick it is told: anything it stops later (while the step still
 * checks for a 3-D Secure challenge) is the next step's to tell, never cleared untold.
 */
function guarded(stepId: string, guard: OutboundGuard, outcome: StepOutcome): StepOutcome {
  const { blockedProvider, denied } = guard;
  Object.assign(guard, { blockedProvider: undefined, denied: undefined });
  if (blockedProvider !== undefined) return { kind: "protected", provider_domain: blockedProvider };
  if (denied !== undefined) {
    return failure(stepId, "OUTBOUND_DENIED", `requests to ${denied.host} are denied (${denied.rule})`, {
      host: denied.host,
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

/** What one execution of a browser step works with. */
interface InPage {
  r: RunsResources;
  row: RunRow;
  step: Step;
  type: StepType<Step>;
  signal: AbortSignal;
  held: Held;
  evidenceId: string;
  screenshots: Record<string, string>;
}

/**
 * Takes a screenshot as evidence: the capture is sent to the browser at once and the file written in the
 * background while the run goes on (the run's page is not closed before its pending screenshots are
 * written). Answers when the browser has answered the capture (`captured`, never rejects) and when the
 * file is written (`written`, the `screenshot` step awaits it). Nothing may act on the page before
 * `captured`: Chromium renders the frame it captures after the request arrives, so an input or a script
 * sent meanwhile, on any CDP session, would show in it.
 */
function shoot(
  x: InPage,
  name: string,
  taken?: Promise<Buffer>,
): { captured: Promise<void>; written: Promise<void> } {
  const page = x.held.lease.page;
  const capture = taken ?? captureJpeg(page, x.held.cdp, x.held.guard.secretOnPage === true);
  const shot = writeScreenshot(x.r.dataDir, x.row.id, x.evidenceId, name, capture);
  x.screenshots[name] = shot.path;
  x.held.guard.lastShot = { path: shot.path, url: page.url() };
  x.r.browserRuntime.track(x.row.id, shot.written);
  const captured = capture.then(
    () => undefined,
    () => undefined,
  );
  return { captured, written: shot.written };
}

/**
 * The step's "before" screenshot: the previous step's "after" when the page has stayed where it left it
 * (the same picture, one file), else a new one, answered before the step acts.
 */
async function shootBefore(x: InPage): Promise<void> {
  const last = x.held.guard.lastShot;
  const url = x.held.lease.page.url();
  if (last !== undefined && last.url === url) x.screenshots.before = last.path;
  // A page that was never opened (about:blank) has nothing to show.
  else if (/^https?:/i.test(url)) await shoot(x, "before").captured;
}

/** Executes the step under the run's signal and the lease's, with screenshots and the 3-D Secure check. */
async function executeInPage(x: InPage, secret: boolean): Promise<StepOutcome> {
  const { lease, guard } = x.held;
  const page = lease.page;
  await guard.pendingShot;
  guard.pendingShot = undefined;
  const acts = x.step.type === "navigate" || x.step.type === "click";
  const challengeBefore =
    acts && guard.lastShot?.url !== page.url() ? await threeDsOn(page, x.held.cdp) : guard.challenge;
  if (!secret) await shootBefore(x);
  const browser = {
    page,
    approved: lease.outbound.approved,
    holdsSecret: secret,
    protectedDomainOf: (url: string) => matchProtectedDomain(url, x.r.protectedDomains),
    screenshot: (name: string) => shoot(x, name).written,
  };
  const ctx = {
    runId: x.row.id,
    stepId: x.step.id,
    attempt: stepAttempt(x.row.steps, x.step.id, x.row.otpAttempts),
    signal: x.signal,
    retries: 0,
    fetch: x.r.fetch,
    startedAt: x.r.now(),
    now: x.r.now,
    browser,
  };
  const raced = [x.type.execute(x.step, ctx), untilAborted(x.signal), untilAborted(lease.signal)];
  const executed = await Promise.race(raced);
  // What the page sent as the step's effect (a form a script submits right after load starts a moment
  // later) is judged before the step's outcome is told. The "after" capture is sent as soon as the action
  // has returned, so the browser takes it during that wait (see captureAcross), then while the 3-D Secure
  // check reads the frames' text and the run commits; the next step acts only once it is answered.
  const grace = lateRequestWindowMs(x.step, browser.approved);
  const settled = lease.outbound.settled(grace);
  // The 3-D Secure check reads the frames' text once the wait is over, alongside the capture's probe.
  const challengeAfter = acts ? settled.then(() => threeDsOn(page, x.held.cdp)) : undefined;
  challengeAfter?.catch(() => undefined); // told when awaited below
  if (secret) {
    guard.lastShot = undefined;
    guard.secretOnPage = true;
    await settled;
  } else if (!lease.signal.aborted) {
    const after = await captureAcross(page, x.held.cdp, guard.secretOnPage === true, settled);
    // A page gone during the wait (its browser crashed) has no "after".
    if (!lease.signal.aborted) shoot(x, "after", after.capture);
    guard.pendingShot = after.inFlight.then(() => undefined);
  } else await settled;
  let outcome = guarded(x.step.id, lease.outbound, executed);
  if (challengeAfter !== undefined) {
    const challenge = await challengeAfter;
    guard.challenge = challenge;
    if (outcome.kind === "completed" && challenge !== undefined && challengeBefore === undefined) {
      outcome = { ...outcome, threeDs: challenge };
    }
  }
  return outcome;
}

/**
 * Executes a browser step in the run's page: opens (or restores) the page, takes a screenshot before and
 * after (not for a step typing a secret or a code), executes under the run's signal and the lease's (a
 * crashed browser fails the step with `BROWSER_CRASHED`, retryable), turns a stopped navigation to a
 * protected provider into a pause, notices a 3-D Secure challenge the step brought up, and leaves the
 * evidence (timing, selector used, fallback trail, URLs, screenshots) to be stored with the step's commit.
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
  let held: Held;
  try {
    held = await r.browserRuntime.open(row, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    return { outcome: errorOutcome(step.id, err), durationMs: Math.round(performance.now() - t0) };
  }
  const { lease, guard } = held;
  // What the guard stopped since the last step told its outcome (a request the page sent late) is this
  // step's to tell: it is cleared once told, not here.
  lease.outbound.approved = row.gate.approved_steps.includes(step.id);
  const x: InPage = { r, row, step, type, signal, held, evidenceId: r.newId("ev"), screenshots: {} };
  const secret = holdsSecret(row.steps[row.cursor]);
  const urlBefore = lease.page.url();
  let outcome: StepOutcome;
  try {
    outcome = await executeInPage(x, secret);
  } catch (err) {
    if (signal.aborted) throw err;
    const cause = lease.signal.aborted ? lease.signal.reason : err;
    outcome = guarded(step.id, lease.outbound, errorOutcome(step.id, cause));
  }
  lease.outbound.approved = false;
  const urlAfter = lease.signal.aborted ? null : lease.page.url();
  const resumeUrl = outcome.kind === "protected" ? urlBefore : (urlAfter ?? "");
  if (/^https?:/i.test(resumeUrl)) guard.resumeUrl = resumeUrl;
  const durationMs = Math.round(performance.now() - t0);
  const detail: Record<string, unknown> = {
    url_before: urlBefore,
    url_after: urlAfter,
    ...(secret ? { screenshots_skipped: "the step puts a secret or a one-time code on the page" } : {}),
    ...(outcome.kind === "gate" ? {} : outcome.detail),
    ...(outcome.kind === "protected" ? { provider_domain: outcome.provider_domain } : {}),
    ...(outcome.kind === "completed" && outcome.threeDs !== undefined ? { three_ds: outcome.threeDs } : {}),
  };
  // A secret or code may show in a URL or a selector's text: evidence is stored redacted.
  const opened = r.vault.open(row);
  const known = [...Object.values(opened.secrets), ...(opened.otpCode === undefined ? [] : [opened.otpCode])];
  const draft: EvidenceDraft = {
    id: x.evidenceId,
    stepId: step.id,
    stepType: step.type,
    outcome: outcome.kind,
    startedAt,
    durationMs,
    detail: createRedactor(known).redactDeep(detail) as Record<string, unknown>,
    screenshots: x.screenshots,
  };
  r.browserRuntime.addEvidence(row.id, draft);
  return { outcome, durationMs };
}
