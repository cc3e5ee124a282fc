import { finishedJobsHead, readFinishedJobs } from "@vetted/fileorg";
import {
  createWebhooksEngine,
  type WebhookFeed,
  type WebhooksEngine,
  type WebhooksEngineOptions,
} from "@vetted/runs/webhooks";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/**
 * fileorg's finished jobs as a webhook feed: each `finished` event (written in the job's terminal
 * transition) becomes `job.finished`. fileorg does not depend on runs; the server composes the two.
 */
export function finishedJobsFeed(db: LibSQLDatabase): WebhookFeed {
  return {
    name: "fileorg.jobs.finished",
    head: () => finishedJobsHead(db),
    async read(position, limit) {
      const entries = await readFinishedJobs(db, position, limit);
      return entries.map((e) => ({
        position: e.position,
        at: e.at,
        event: {
          type: "job.finished" as const,
          subject: e.jobId,
          data: {
            job_id: e.jobId,
            kind: e.kind,
            status: e.status,
            error: e.data.error ?? null,
            at: new Date(e.at).toISOString(),
          },
        },
      }));
    },
  };
}

/** The signed-webhooks engine of the server: the runs outbound policy and secrets key, fileorg's jobs feed. */
export function createServerWebhooks(
  db: LibSQLDatabase,
  options: Omit<WebhooksEngineOptions, "db" | "feeds">,
): WebhooksEngine {
  return createWebhooksEngine({ db, feeds: [finishedJobsFeed(db)], ...options });
}
