import type { KeysetPage } from "@vetted/store";
import { desc } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import type { OutboundGuard } from "../../core/browser/network-guard.js";
import { type ListQuery, newestFirstAfter, newestFirstPage, pageLimit } from "../../core/lists.js";
import type { Flow } from "../../domain/flow.js";
import { buildFlowDraft } from "../../domain/flow-draft.js";
import { type FlowDraft, FlowFromSessionInput, type Session } from "../../domain/session.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { sessions } from "../../store/lanes-schema.js";
import type { SessionsResources } from "./resources.js";
import { liveSession, SECRET_FIELDS_CSS, sessionRow } from "./session-verbs.js";
import { toDraft, toSession } from "./views.js";

/** A session, with its live event count while it records here. @throws SESSION_NOT_FOUND */
export async function getSession(r: SessionsResources, id: string): Promise<Session> {
  const row = await sessionRow(r, id);
  const live = r.live.get(id);
  if (live !== undefined && row.status === "active") {
    return toSession({ ...row, currentUrl: live.lease.page.url() }, live.recorder.events.length);
  }
  return toSession(row);
}

/** Sessions, newest first. @throws CURSOR_INVALID */
export async function listSessions(
  r: SessionsResources,
  query: ListQuery = {},
): Promise<KeysetPage<Session>> {
  const limit = pageLimit(query.limit);
  const rows = await r.db
    .select()
    .from(sessions)
    .where(newestFirstAfter(sessions, "sessions", query.cursor))
    .orderBy(desc(sessions.createdAt), desc(sessions.id))
    .limit(limit + 1);
  return newestFirstPage(rows, limit, "sessions", (row) => toSession(row));
}

/**
 * The session's flow draft: built from what it recorded so far while live (`final: false`), the stored
 * one once finished. @throws SESSION_NOT_FOUND
 */
export async function getFlowDraft(r: SessionsResources, id: string): Promise<FlowDraft> {
  const row = await sessionRow(r, id);
  if (row.draft !== null) return toDraft(id, row.draft, true);
  const live = r.live.get(id);
  const events = live !== undefined && row.status === "active" ? live.recorder.events : row.events;
  return toDraft(id, buildFlowDraft(row.startUrl, events), row.status !== "active");
}

/** Stores a session's draft as a new flow (`POST /api/flows {session_id}`). @throws SESSION_NOT_FOUND, FLOW_INVALID */
export async function promoteDraft(r: SessionsResources, input: FlowFromSessionInput): Promise<Flow> {
  const parsed = FlowFromSessionInput.safeParse(input);
  if (!parsed.success)
    throw new InvalidInputError("REQUEST_INVALID", "The request is invalid.", parsed.error.issues);
  const draft = await getFlowDraft(r, parsed.data.session_id);
  return r.createFlow({ name: parsed.data.name ?? draft.name, steps: draft.steps });
}

/** A PNG of the live session's page as a person sees it (secret fields masked). @throws SESSION_NOT_ACTIVE */
export async function screenshotSession(r: SessionsResources, id: string): Promise<Buffer> {
  const { lease } = await liveSession(r, id);
  return lease.page.screenshot({ type: "png", mask: [lease.page.locator(SECRET_FIELDS_CSS)] });
}

/**
 * The live page and context of a session, for in-process callers that drive it as a person would (tests,
 * the computer-use lane). @throws SESSION_NOT_FOUND, SESSION_NOT_ACTIVE
 */
export async function livePage(
  r: SessionsResources,
  id: string,
): Promise<{ page: Page; context: BrowserContext; outbound: OutboundGuard }> {
  const { lease } = await liveSession(r, id);
  return { page: lease.page, context: lease.context, outbound: lease.outbound };
}
