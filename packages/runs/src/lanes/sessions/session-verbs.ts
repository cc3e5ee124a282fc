import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runTransaction } from "@vetted/store";
import { and, eq, ne } from "drizzle-orm";
import type { StorageState } from "../../core/browser/host-api.js";
import type { OutboundGuard } from "../../core/browser/network-guard.js";
import { buildFlowDraft } from "../../domain/flow-draft.js";
import { type Session, SessionStartInput, type StoredArtifact } from "../../domain/session.js";
import { InvalidInputError, SessionNotFoundError } from "../../kernel/errors.js";
import { SessionNotActiveError, SessionStartError } from "../../kernel/lane-errors.js";
import { sessions } from "../../store/lanes-schema.js";
import { indexArtifact, sessionDir, underDataDir, writeFileWithDigest } from "./artifacts.js";
import { redactHar } from "./har.js";
import type { LiveSession, SessionsResources } from "./resources.js";
import { prepareContext, refillSpare, takePrepared } from "./spare.js";
import { type SessionRow, toSession } from "./views.js";

/** Fields whose pixels a session's screenshots hide (secrets the recorder never records either). */
export const SECRET_FIELDS_CSS =
  'input[type="password"], input[autocomplete^="cc-"], input[autocomplete="one-time-code"]';

/** The session row. @throws SESSION_NOT_FOUND */
export async function sessionRow(r: SessionsResources, id: string): Promise<SessionRow> {
  const [row] = await r.db.select().from(sessions).where(eq(sessions.id, id)).limit(1);
  if (row === undefined) throw new SessionNotFoundError(id);
  return row;
}

/** The live session of this process. @throws SESSION_NOT_FOUND, SESSION_NOT_ACTIVE */
export async function liveSession(r: SessionsResources, id: string): Promise<LiveSession> {
  const live = r.live.get(id);
  if (live !== undefined && live.finishing === undefined) {
    live.lease.touch();
    return live;
  }
  const row = await sessionRow(r, id);
  const why =
    row.status === "active"
      ? "its browser context lives in another server process (or was lost when one stopped)."
      : row.status === "finished"
        ? "it was finished; start a new session (storage_state_from can carry its login over)."
        : (row.error ?? "its browser context was lost.");
  throw new SessionNotActiveError(
    id,
    row.status === "active" && live !== undefined ? "finishing" : row.status,
    why,
  );
}

/**
 * The cookies and localStorage of a session: live from its context while active here, else the state its
 * finish saved. @throws SESSION_NOT_FOUND (also when it saved none)
 */
export async function loadStorageState(r: SessionsResources, id: string): Promise<StorageState> {
  const live = r.live.get(id);
  if (live !== undefined && live.finishing === undefined) return live.lease.context.storageState();
  const row = await sessionRow(r, id);
  if (row.storageStatePath === null) throw new SessionNotFoundError(id, "with a saved browser state");
  return JSON.parse(readFileSync(underDataDir(r.dataDir, row.storageStatePath), "utf8")) as StorageState;
}

function parseStart(input: unknown) {
  const parsed = SessionStartInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const urlIssue = parsed.error.issues.find((i) => i.path[0] === "start_url");
  if (urlIssue !== undefined)
    throw new SessionStartError("START_URL_INVALID", `start_url: ${urlIssue.message}`);
  throw new InvalidInputError("REQUEST_INVALID", "The session request is invalid.", parsed.error.issues);
}

/** Marks a session failed when its context ends without a finish (idle timeout, browser crash). */
function watchLease(r: SessionsResources, id: string, live: LiveSession): void {
  live.lease.signal.addEventListener("abort", () => {
    if (live.finishing !== undefined || r.live.get(id) !== live) return;
    r.live.delete(id);
    const reason = live.lease.signal.reason;
    const error = `The browser context ended: ${reason instanceof Error ? reason.message : String(reason)}`;
    const at = r.now();
    void r.db
      .update(sessions)
      .set({
        status: "failed",
        error,
        events: live.recorder.events,
        eventCount: live.recorder.events.length,
        updatedAt: at,
      })
      .where(eq(sessions.id, id))
      .catch((err: unknown) => r.onError(`could not mark session ${id} failed`, err));
  });
}

/** Throws START_URL_DENIED when the context's outbound guard refused the start URL (or a hop of it). */
function refusedStart(startUrl: string, outbound: OutboundGuard): void {
  const d = outbound.denied;
  if (d !== undefined)
    throw new SessionStartError(
      "START_URL_DENIED",
      `${startUrl}: requests to ${d.host} are denied (${d.rule})`,
      {
        start_url: startUrl,
        host: d.host,
        rule: d.rule,
      },
    );
  const provider = outbound.blockedProvider;
  if (provider !== undefined)
    throw new SessionStartError(
      "START_URL_DENIED",
      `${startUrl} reaches the protected payment provider ${provider}, which a session may not open`,
      { start_url: startUrl, provider_domain: provider },
    );
}

/**
 * Opens a session: a fresh browser context (with the storage state of `storage_state_from`, when given)
 * that records a HAR and the person's actions, at `start_url`.
 * @throws START_URL_INVALID, START_URL_UNREACHABLE, START_URL_DENIED, SESSION_NOT_FOUND, BROWSER_UNAVAILABLE
 */
export async function startSession(r: SessionsResources, input: SessionStartInput): Promise<Session> {
  const body = parseStart(input);
  const startUrl = new URL(body.start_url).href;
  const storageState =
    body.storage_state_from === undefined ? undefined : await loadStorageState(r, body.storage_state_from);
  const prepared = storageState === undefined ? await takePrepared(r) : await prepareContext(r, storageState);
  const { id, live } = prepared;
  const { lease } = live;
  try {
    await lease.page.goto(startUrl, { waitUntil: "domcontentloaded", timeout: r.navigationTimeoutMs });
  } catch (err) {
    refillSpare(r);
    await lease.release();
    refusedStart(startUrl, lease.outbound);
    const message = err instanceof Error ? (err.message.split("\n")[0] ?? err.message) : String(err);
    throw new SessionStartError("START_URL_UNREACHABLE", `${startUrl} did not load: ${message}`, {
      start_url: startUrl,
    });
  }
  const at = r.now();
  const row: SessionRow = {
    id,
    status: "active",
    mode: body.mode,
    startUrl,
    currentUrl: lease.page.url(),
    storageStateFrom: body.storage_state_from ?? null,
    storageStatePath: null,
    owner: r.owner,
    events: [],
    eventCount: 0,
    draft: null,
    artifacts: [],
    error: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
  };
  try {
    await runTransaction(r.db, (tx) => tx.insert(sessions).values(row));
  } finally {
    // The next session's context is prepared once this one has started, not while it navigates.
    refillSpare(r);
  }
  r.live.set(id, live);
  watchLease(r, id, live);
  return toSession(row, live.recorder.events.length);
}

/** Saves a live session's files: final screenshot, storage state (0600), events; then closes it (HAR). */
async function saveSession(r: SessionsResources, id: string, live: LiveSession) {
  const dir = sessionDir(r.dataDir, id);
  const { page, context } = live.lease;
  const at = r.now();
  const artifacts: StoredArtifact[] = [];
  const currentUrl = page.url();
  const shot = await page.screenshot({ type: "png", mask: [page.locator(SECRET_FIELDS_CSS)] });
  writeFileWithDigest(join(dir, "final.png"), shot);
  artifacts.push(
    indexArtifact(r.dataDir, join(dir, "final.png"), { kind: "screenshot", content_type: "image/png" }, at),
  );
  const state = await context.storageState();
  writeFileWithDigest(join(dir, "storage-state.json"), JSON.stringify(state), 0o600);
  const events = [...live.recorder.events];
  writeFileWithDigest(join(dir, "events.json"), JSON.stringify(events));
  artifacts.push(
    indexArtifact(
      r.dataDir,
      join(dir, "events.json"),
      { kind: "events", content_type: "application/json" },
      at,
    ),
  );
  await live.lease.release(); // closing the context writes the HAR
  const har = join(dir, "session.har");
  redactHar(har);
  artifacts.push(indexArtifact(r.dataDir, har, { kind: "har", content_type: "application/json" }, at));
  return { artifacts, events, currentUrl, storageStatePath: join("sessions", id, "storage-state.json") };
}

/**
 * Finishes a session: saves its storage state under the data directory, indexes its artifacts (final
 * screenshot, HAR, recorded events), stores the flow draft and closes the context. Finishing a finished
 * session answers it again; concurrent finishes share one.
 * @throws SESSION_NOT_FOUND, SESSION_NOT_ACTIVE
 */
export async function finishSession(r: SessionsResources, id: string): Promise<Session> {
  const live = r.live.get(id);
  if (live === undefined) {
    const row = await sessionRow(r, id);
    if (row.status === "finished") return toSession(row);
    await liveSession(r, id);
  } else if (live.finishing === undefined) {
    live.finishing = (async () => {
      const row = await sessionRow(r, id);
      const saved = await saveSession(r, id, live);
      const at = r.now();
      await r.db
        .update(sessions)
        .set({
          status: "finished",
          currentUrl: saved.currentUrl,
          storageStatePath: saved.storageStatePath,
          events: saved.events,
          eventCount: saved.events.length,
          draft: buildFlowDraft(row.startUrl, saved.events),
          artifacts: saved.artifacts,
          updatedAt: at,
          finishedAt: at,
        })
        .where(eq(sessions.id, id));
    })().finally(() => r.live.delete(id));
    await live.finishing;
  } else {
    await live.finishing;
  }
  return toSession(await sessionRow(r, id));
}

/**
 * Marks the sessions a previous server process left `active` as `failed`: their browser contexts died with
 * it. Call once at start-up, in the one process that serves sessions. Returns how many were marked.
 */
export async function recoverInterrupted(r: SessionsResources): Promise<number> {
  const at = r.now();
  const marked = await r.db
    .update(sessions)
    .set({
      status: "failed",
      error: "The server stopped while the session was live; start a new session.",
      updatedAt: at,
    })
    .where(and(eq(sessions.status, "active"), ne(sessions.owner, r.owner)))
    .returning({ id: sessions.id });
  return marked.length;
}

/**
 * The run engine's session-state port: a session's storage state (live or saved), or undefined when there
 * is no such session or it saved none — so `session_id` on `POST /api/runs` binds a run to it.
 */
export async function storageStateOrUndefined(
  r: SessionsResources,
  id: string,
): Promise<StorageState | undefined> {
  try {
    return await loadStorageState(r, id);
  } catch (err) {
    if (err instanceof SessionNotFoundError) return undefined;
    throw err;
  }
}
