import {
  exceedsJsonDepth,
  MAX_JSON_DEPTH,
  NestingTooDeepError,
  type Tx,
  type WriteOptions,
} from "@vetted/store";
import { eq } from "drizzle-orm";
import { isTerminal } from "../domain/status.js";
import { crashRun } from "../domain/step-recovery.js";
import { failStep, openProviderGate, type Transition } from "../domain/transitions.js";
import { type OutboundPolicy, pinnedFetch } from "../kernel/outbound.js";
import { createRedactor } from "../kernel/redactor.js";
import { runs } from "../store/schema.js";
import type { Step } from "./steps/registry.js";
import type { StepOutcome, StepType } from "./steps/step-type.js";
import { type RunRow, stateOf } from "./views.js";

/**
 * A completed step whose vars nest deeper than {@link MAX_JSON_DEPTH} (a `set` that wraps a deep var
 * again, an extracted value) fails with `nesting_too_deep` instead of being stored.
 */
export function guardOutcome(outcome: StepOutcome, stepId: string | undefined): StepOutcome {
  if (outcome.kind !== "completed" || outcome.vars === undefined) return outcome;
  if (!exceedsJsonDepth(outcome.vars, MAX_JSON_DEPTH + 1)) return outcome;
  throw new NestingTooDeepError(`The vars step ${stepId ?? "?"} sets`, MAX_JSON_DEPTH);
}

/** The end reason for an error no step handled: too-deep values (or a stack they overflowed), or else internal. */
export function crashReasonOf(err: unknown): "nesting_too_deep" | "internal_error" {
  if (err instanceof NestingTooDeepError) return "nesting_too_deep";
  if (err instanceof RangeError && /call stack/i.test(err.message)) return "nesting_too_deep";
  return "internal_error";
}

/**
 * Whether `err` (or an error it wraps) is the database being busy or locked: a passing condition that says
 * nothing about the run, so the run is left to be re-claimed after its lease rather than failed.
 */
export function isTransientDbError(err: unknown): boolean {
  let current: unknown = err;
  for (let i = 0; i < 5 && current instanceof Error; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /SQLITE_(BUSY|LOCKED)/.test(code)) return true;
    if (/SQLITE_(BUSY|LOCKED)|database is locked/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** The lease token of one claim by `workerId`: each claim gets its own, so a re-claim is never mistaken for the old one. */
export function leaseToken(workerId: string, claim: number): string {
  return `${workerId}#${claim}`;
}

/** Whether a run's lease token is one of `workerId`'s claims. */
export function isOwnLease(leaseOwner: string | null, workerId: string): boolean {
  return leaseOwner?.startsWith(`${workerId}#`) ?? false;
}

/** What {@link failRunOnError} needs of the engine. */
export interface CrashDeps {
  /** One write transaction (the engine's, which tells the event hub). */
  write<T>(fn: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
  workerId: string;
  now(): number;
  persist(tx: Tx, row: RunRow, t: Transition, at: number): Promise<RunRow | undefined>;
}

/**
 * Fails one run that threw while it was claimed, executed, interpolated or persisted, so the error stays
 * with that run: the worker's round goes on and other runs still finish. Only a run that is queued, ours,
 * or whose lease expired is touched; a busy or locked database fails nothing (the run is re-claimed after
 * its lease, as before). Returns whether the run was failed.
 */
export async function failRunOnError(deps: CrashDeps, runId: string, err: unknown): Promise<boolean> {
  if (isTransientDbError(err)) return false;
  const reason = crashReasonOf(err);
  const message =
    err instanceof NestingTooDeepError
      ? `NESTING_TOO_DEEP: ${err.message}`
      : reason === "nesting_too_deep"
        ? `NESTING_TOO_DEEP: a value nests too deep to process (more than ${MAX_JSON_DEPTH} levels)`
        : `INTERNAL_ERROR: the run stopped on an unexpected error: ${err instanceof Error ? err.message : String(err)}`;
  return deps.write(async (tx) => {
    const at = deps.now();
    const [row] = await tx.select().from(runs).where(eq(runs.id, runId)).limit(1);
    if (row === undefined || isTerminal(row.status)) return false;
    const mine =
      row.status === "queued" ||
      (row.status === "running" &&
        (isOwnLease(row.leaseOwner, deps.workerId) || (row.leaseExpiresAt ?? 0) < at));
    if (!mine) return false;
    const t = crashRun({ ...stateOf(row), status: row.status }, row.steps, reason, message);
    if (t === undefined) return false;
    return (await deps.persist(tx, row, t, at)) !== undefined;
  });
}

/** An `external` step, cleared to send (with a fetch pinned to the checked address), or blocked. */
export type OutboundPreparation =
  | { kind: "blocked"; transition: Transition }
  | { kind: "ready"; fetch: typeof globalThis.fetch; close(): Promise<void> };

/** What {@link prepareOutbound} judges. */
export interface OutboundArgs {
  policy: OutboundPolicy;
  protectedDomains: readonly string[];
  fetch: typeof globalThis.fetch;
  row: RunRow;
  step: Step;
  resolvedStep: Step;
  type: StepType<Step>;
  now: number;
}

function refused(a: OutboundArgs, message: string, detail: Record<string, unknown>): OutboundPreparation {
  const outcome = { kind: "failed", reason: "step_failed", message, expectation: false, detail } as const;
  const t = failStep(stateOf(a.row), a.row.steps, outcome, a.row.policies, 0, a.now);
  return { kind: "blocked", transition: t };
}

/**
 * Judges the URLs a step would contact on the addresses they resolve to, right before it runs: a denied
 * host fails the step with `OUTBOUND_DENIED` (nothing sent), a protected provider not yet approved opens
 * the approval gate, and otherwise the step gets a fetch pinned to the address that was checked.
 */
export async function prepareOutbound(a: OutboundArgs): Promise<OutboundPreparation> {
  let ready: OutboundPreparation = { kind: "ready", fetch: a.fetch, close: async () => undefined };
  for (const url of a.type.targets?.(a.resolvedStep) ?? []) {
    const d = await a.policy.decide(url, a.protectedDomains);
    if (d.kind === "unchecked") continue;
    if (d.kind === "denied") {
      const message = `${a.step.id}: OUTBOUND_DENIED: requests to ${d.host} are denied (${d.rule})`;
      return refused(a, message, { code: "OUTBOUND_DENIED", host: d.host, rule: d.rule });
    }
    if (d.kind === "unresolved") {
      return refused(a, `${a.step.id}: ${d.host} does not resolve: ${d.message}`, { host: d.host });
    }
    const state = stateOf(a.row);
    if (d.protectedDomain !== undefined && !state.gate.approved_steps.includes(a.step.id)) {
      const t = openProviderGate(state, a.row.steps, d.protectedDomain, a.row.policies, a.now);
      return { kind: "blocked", transition: t };
    }
    await ready.close();
    ready = { kind: "ready", ...pinnedFetch(a.fetch, d.address, d.family) };
  }
  return ready;
}

/** The code a step fails with when a secret would end up in the scheme, credentials, host or port of its URL. */
export const SECRET_IN_URL_HOST = "SECRET_IN_URL_HOST";

/**
 * The part of a URL before its path (scheme, credentials, host, port) as written and as a URL parser reads
 * it, and each of its labels (so a short value that is a whole label is found too).
 */
function authorityForms(url: string): string[] {
  const raw = /^\s*([A-Za-z][A-Za-z0-9+.-]*:)?[/\\]*([^/?#\\]*)/.exec(url);
  const forms = [`${raw?.[1] ?? ""}${raw?.[2] ?? ""}`];
  if (URL.canParse(url)) {
    const u = new URL(url);
    forms.push(`${u.protocol}${u.username}:${u.password}@${u.host}`);
  }
  return [...forms, ...forms.flatMap((f) => f.split(/[.:@[\]]+/))];
}

/**
 * The reference (`secrets.token`) of the first secret value that the scheme, credentials,
 * host or port of one of `urls` holds — in any letter case or encoding — or undefined. `secrets` maps a
 * reference to its value. Such a URL is never sent: its host would reach DNS resolvers, and come back
 * lower-cased in errors.
 */
export function secretInUrlAuthority(
  urls: readonly string[],
  secrets: Readonly<Record<string, string>>,
): string | undefined {
  const forms = urls.flatMap(authorityForms);
  if (!createRedactor(Object.values(secrets)).reveals(forms)) return undefined;
  const named = Object.entries(secrets).find(([, value]) => createRedactor([value]).reveals(forms));
  return named?.[0] ?? "a secret";
}

/** The failed outcome of a step whose URL would carry the secret `reference` in its host (never its value). */
export function secretInHostOutcome(stepId: string, reference: string) {
  const message =
    `${stepId}: ${SECRET_IN_URL_HOST}: the URL's scheme, host or port would hold the secret \${${reference}}; ` +
    "nothing was looked up or sent. Put secrets in the path, query, headers or body, never in the host";
  return {
    kind: "failed",
    reason: "step_failed",
    message,
    expectation: false,
    detail: { code: SECRET_IN_URL_HOST, reference },
  } as const;
}
