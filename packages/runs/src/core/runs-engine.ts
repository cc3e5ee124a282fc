import { listEvidence, readScreenshot } from "./evidence.js";
import { createFlow, getFlow, listFlows, updateFlow } from "./flows.js";
import { recoverPlan } from "./recover-plan.js";
import type { RunsResources } from "./resources.js";
import { countRunsByStatus, getRun, listEvents, listRuns } from "./run-queries.js";
import { retryRun } from "./run-retry.js";
import { cancel, createRun, resumeRun, submitOtp } from "./run-verbs.js";
import { Scheduler } from "./scheduler.js";
import { createTakeover } from "./takeover.js";
import { createTemplateLifecycle } from "./template-lifecycle.js";
import { createTemplate, getTemplate, listTemplates, updateTemplate } from "./templates.js";

type Tail<F> = F extends (r: never, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/**
 * Creates the run core over resources built by `createResources`: flows, templates and durable runs, one
 * module per concern. `start()` launches this process's worker (claims queued runs under a lease, executes
 * steps, expires gates, then runs the lanes' `chores`); `stop()` ends it. `subscribe()` streams a run's
 * events. `createRunsEngine` (`src/platform.ts`) composes it with the lanes.
 */
export function createRunsCore(r: RunsResources, chores: ReadonlyArray<() => Promise<unknown>> = []) {
  const scheduler = new Scheduler(r, chores);
  const takeover = createTakeover(r);
  const bind =
    <F extends (res: typeof r, ...rest: never[]) => unknown>(verb: F) =>
    (...rest: Parameters<Tail<F>>) =>
      verb(r, ...(rest as never[])) as ReturnType<F>;
  return {
    workerId: r.workerId,
    /** Tells the outbound policy where this server listens, so `http` steps cannot call its own API. */
    setServerAddress: (address: string, port: number) => r.outbound.setServerAddress(address, port),
    createFlow: bind(createFlow),
    getFlow: bind(getFlow),
    updateFlow: bind(updateFlow),
    listFlows: bind(listFlows),
    createTemplate: bind(createTemplate),
    getTemplate: bind(getTemplate),
    updateTemplate: bind(updateTemplate),
    listTemplates: bind(listTemplates),
    /** The template lifecycle: promote, fork-version, activate, archive, mark-recommended, history, export, import. */
    ...createTemplateLifecycle(r),
    /** What a person can do about a waiting, failed or cancelled run, best action first. */
    recoverPlan: bind(recoverPlan),
    createRun: bind(createRun),
    getRun: bind(getRun),
    listRuns: bind(listRuns),
    resumeRun: bind(resumeRun),
    submitOtp: bind(submitOtp),
    cancelRun: bind(cancel),
    /** Retries a failed or cancelled run from the step it stopped at, as a new run (at most once per run). */
    retryRun: bind(retryRun),
    listEvents: bind(listEvents),
    countRunsByStatus: bind(countRunsByStatus),
    /** A run's browser-step evidence (timing, selectors, URLs, screenshots), oldest first; `step_id` narrows it. */
    listEvidence: bind(listEvidence),
    /** One evidence screenshot's bytes. */
    readScreenshot: bind(readScreenshot),
    /**
     * Streams the run's events after `after` (its backlog first, then each commit, from this process at once
     * and from other processes sharing the database within `catchUpMs`). Returns the unsubscribe.
     */
    subscribe: r.hub.subscribe,
    /**
     * Streams the runs list's changes after position `after` (a run created, a status changed; its backlog
     * first, then each commit, from other processes within `catchUpMs`). Returns the unsubscribe.
     */
    subscribeChanges: r.changes.subscribe,
    /** Up to `limit` (≤ 500) run-list changes after position `after`, oldest first. */
    listChanges: r.changes.since,
    /** The newest run-list position so far: a follower that wants only new changes starts after it. */
    changesHead: r.changes.head,
    /**
     * Taking over the page of a run paused at a gate: `liveStatus`, `openLiveView` (a JPEG screencast),
     * `takeControl`, `sendInput` (click, scroll, key, type), `handBack` (see `createTakeover`).
     */
    liveStatus: takeover.liveStatus,
    openLiveView: takeover.openLiveView,
    takeControl: takeover.takeControl,
    sendInput: takeover.sendInput,
    handBack: takeover.handBack,
    /** Starts this process's worker: polls, claims, executes, expires gates. Idempotent. */
    start: () => scheduler.start(),
    /** Stops the worker, aborts running steps, hands their leases back, and ends every subscription. */
    stop: async () => {
      r.hub.close();
      r.changes.close();
      await scheduler.stop();
      await takeover.close();
      await r.browserRuntime.releaseAll();
    },
  };
}

/** The run core. */
export type RunsCore = ReturnType<typeof createRunsCore>;
export type { ChangeListener } from "../kernel/change-hub.js";
export type { EventListener } from "../kernel/hub.js";
export type { SessionStates } from "./browser-runtime.js";
export type { EvidenceQuery } from "./evidence.js";
export type { IdempotencyOptions } from "./idempotency.js";
export type { ListQuery } from "./lists.js";
export type { RunsCoreOptions, RunsObserver, TransitionHook } from "./resources.js";
export type { EventListQuery, RunListQuery } from "./run-queries.js";
