import { decodeCursor, encodeCursor, type KeysetPage, type Tx, toKeysetPage } from "@vetted/store";
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { type ListQuery, pageLimit } from "../../core/lists.js";
import { persist } from "../../core/persist.js";
import type { RunsResources } from "../../core/resources.js";
import { type RunRow, stateOf } from "../../core/views.js";
import { hasControlCharacters } from "../../domain/embeddings.js";
import {
  codeForPolicy,
  type InboundCallback,
  type SmsDelivery,
  type SmsFacts,
  type SmsReceipt,
} from "../../domain/inbound-sms.js";
import { decideResume, REDACTED } from "../../domain/transitions.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { createSecretBox, type SecretBox } from "../../kernel/secret-box.js";
import { inboundCallbacks, inboundMessages, runs } from "../../store/schema.js";

/** A rejected callback, audited with why. */
export interface CallbackRejection {
  provider: string;
  reason: string;
  message_id?: string | undefined;
  sender?: string | undefined;
  recipient?: string | undefined;
}

const CALLBACKS_LIST = "inbound_callbacks";
const CANDIDATES = 50;
/** How far back the sweep looks for unconsumed messages: the longest OTP window (one day). */
const LONGEST_WINDOW_MS = 86_400_000;

const onSmsSource = sql`json_extract(${runs.policies}, '$.otp.source') = 'inbound_sms'`;

/** The runs waiting for a code over SMS, oldest first. */
function waitingSmsRuns(db: RunsResources["db"] | Tx, at: number) {
  return db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.status, "waiting_otp"),
        onSmsSource,
        or(isNull(runs.waitExpiresAt), gt(runs.waitExpiresAt, at)),
      ),
    )
    .orderBy(asc(runs.createdAt), asc(runs.id))
    .limit(CANDIDATES);
}

/** Since when a waiting run takes stored messages: its gate's window, never before it was created. */
function windowStart(row: RunRow): number {
  const wait = row.waitContext;
  if (wait === null) return row.createdAt;
  const opened = Date.parse(wait.opened_at);
  // After a wrong code only newer messages count, so the same wrong message is never taken twice.
  if (wait.reason_code === "otp_rejected") return opened;
  return Math.max(row.createdAt, opened - row.policies.otp.timeout_seconds * 1000);
}

/** What the inbound-SMS functions share: the engine's resources, the message box, and the sweep's clock. */
interface SmsContext {
  readonly r: RunsResources;
  readonly box: SecretBox;
  /** When the sweep last looked for stored messages. */
  lastMatch: number;
  /** Whether a stored message is still unconsumed (prepared once: it runs every poll interval). */
  readonly anyPending: ReturnType<typeof pendingQuery>;
}

function pendingQuery(db: RunsResources["db"]) {
  return db
    .select({ id: inboundMessages.id })
    .from(inboundMessages)
    .where(
      and(
        isNotNull(inboundMessages.provider),
        isNull(inboundMessages.consumedAt),
        gte(inboundMessages.receivedAt, sql.placeholder("since")),
      ),
    )
    .limit(1)
    .prepare();
}

const contextOf = (id: string) => `inbound:${id}`;

async function audit(
  ctx: SmsContext,
  tx: Tx,
  entry: Omit<typeof inboundCallbacks.$inferInsert, "id" | "receivedAt">,
) {
  await tx.insert(inboundCallbacks).values({ id: ctx.r.newId("cbk"), receivedAt: ctx.r.now(), ...entry });
}

/** Resumes `row` with `code` (compare-and-set on its version) and consumes `messageRowId`; whether it won. */
async function resumeWith(
  ctx: SmsContext,
  tx: Tx,
  row: RunRow,
  code: string,
  messageRowId: string,
  at: number,
) {
  const decision = decideResume(stateOf(row), row.steps, { kind: "otp", otp_code: code }, at);
  if (!decision.ok) return false;
  const consumed = await tx
    .update(inboundMessages)
    .set({ consumedAt: at, runId: row.id, body: REDACTED })
    .where(and(eq(inboundMessages.id, messageRowId), isNull(inboundMessages.consumedAt)));
  if (consumed.rowsAffected === 0) return false;
  const updated = await persist(ctx.r, tx, row, decision.transition, at, { extra: { resumedAt: at } });
  if (updated === undefined) throw new RunMoved();
  return true;
}

/** Audits a callback the integration refused (bad token, signature, stale timestamp, bad fields). */
async function recordRejected(ctx: SmsContext, rejection: CallbackRejection): Promise<void> {
  await ctx.r.write((tx) =>
    audit(ctx, tx, {
      provider: rejection.provider,
      outcome: "rejected",
      reason: rejection.reason,
      providerMessageId: rejection.message_id ?? null,
      sender: rejection.sender ?? null,
      recipient: rejection.recipient ?? null,
    }),
  );
}

function auditBase(delivery: SmsDelivery) {
  return {
    provider: delivery.provider,
    providerMessageId: delivery.message_id,
    sender: delivery.sender,
    recipient: delivery.recipient,
  };
}

/**
 * Stores an inbound SMS once and resumes the oldest matching waiting run with its code, in one transaction.
 * A repeat of a message id answers `duplicate` and changes nothing. @throws REQUEST_INVALID (blank text)
 */
async function receiveSms(ctx: SmsContext, delivery: SmsDelivery): Promise<SmsReceipt> {
  const { r } = ctx;
  if (delivery.text.trim() === "" || hasControlCharacters(delivery.text)) {
    const reason = delivery.text.trim() === "" ? "text_empty" : "text_control_characters";
    await r.write((tx) => audit(ctx, tx, { ...auditBase(delivery), outcome: "rejected", reason }));
    throw new InvalidInputError("REQUEST_INVALID", "The message text is empty or holds control characters.", {
      reason,
    });
  }
  const facts: SmsFacts = { sender: delivery.sender, recipient: delivery.recipient, text: delivery.text };
  for (let attempt = 0; ; attempt++) {
    // The candidates are read without the write lock; the resume lands only on the version read.
    const at = r.now();
    const candidates = await waitingSmsRuns(r.db, at);
    try {
      const receipt = await r.write((tx) => storeAndResume(ctx, tx, delivery, facts, candidates, at));
      if (receipt.run_id !== null) r.kick();
      return receipt;
    } catch (err) {
      if (!(err instanceof RunMoved) || attempt >= 3) throw err;
    }
  }
}

async function storeAndResume(
  ctx: SmsContext,
  tx: Tx,
  delivery: SmsDelivery,
  facts: SmsFacts,
  candidates: readonly RunRow[],
  at: number,
): Promise<SmsReceipt> {
  const base = auditBase(delivery);
  const id = ctx.r.newId("msg");
  const inserted = await tx
    .insert(inboundMessages)
    .values({ id, ...base, runId: null, body: ctx.box.seal(delivery.text, contextOf(id)), receivedAt: at })
    .onConflictDoNothing({ target: [inboundMessages.provider, inboundMessages.providerMessageId] })
    .returning({ id: inboundMessages.id });
  if (inserted.length === 0) {
    await audit(ctx, tx, { ...base, outcome: "duplicate", reason: null });
    return { ok: true, duplicate: true, message_id: delivery.message_id, run_id: null };
  }
  for (const row of candidates) {
    const code = codeForPolicy(row.policies.otp, facts);
    if (code === undefined) continue;
    if (await resumeWith(ctx, tx, row, code, id, at)) {
      await audit(ctx, tx, { ...base, outcome: "accepted", reason: null, runId: row.id });
      return { ok: true, duplicate: false, message_id: delivery.message_id, run_id: row.id };
    }
  }
  await audit(ctx, tx, { ...base, outcome: "accepted", reason: "no_waiting_run" });
  return { ok: true, duplicate: false, message_id: delivery.message_id, run_id: null };
}

/** Gives a stored, unconsumed message to one waiting run that takes it; how many runs it resumed. */
async function matchWaiting(ctx: SmsContext): Promise<number> {
  const { r } = ctx;
  const at = r.now();
  if (at - ctx.lastMatch < r.pollMs) return 0;
  ctx.lastMatch = at;
  const [pending] = await ctx.anyPending.all({ since: at - LONGEST_WINDOW_MS });
  if (pending === undefined) return 0;
  let resumed = 0;
  for (const row of await waitingSmsRuns(r.db, at)) {
    const won = await r
      .write((tx) => takeStored(ctx, tx, row, at))
      .catch((err: unknown) => {
        if (err instanceof RunMoved) return false;
        throw err;
      });
    if (won) resumed += 1;
  }
  if (resumed > 0) r.kick();
  return resumed;
}

/** The newest stored message in `row`'s window that carries its code, taken in `tx`; whether it resumed. */
async function takeStored(ctx: SmsContext, tx: Tx, row: RunRow, at: number): Promise<boolean> {
  const messages = await tx
    .select()
    .from(inboundMessages)
    .where(
      and(
        isNotNull(inboundMessages.provider),
        isNull(inboundMessages.consumedAt),
        gte(inboundMessages.receivedAt, windowStart(row)),
      ),
    )
    .orderBy(desc(inboundMessages.receivedAt))
    .limit(CANDIDATES);
  for (const m of messages) {
    const text = ctx.box.open(m.body, contextOf(m.id));
    if (text === undefined) continue;
    const code = codeForPolicy(row.policies.otp, {
      sender: m.sender ?? "",
      recipient: m.recipient ?? "",
      text,
    });
    if (code !== undefined && (await resumeWith(ctx, tx, row, code, m.id, at))) return true;
  }
  return false;
}

/** The audit of provider callbacks, newest first. @throws CURSOR_INVALID */
async function listCallbacks(ctx: SmsContext, query: ListQuery = {}): Promise<KeysetPage<InboundCallback>> {
  const limit = pageLimit(query.limit);
  let after: ReturnType<typeof or>;
  if (query.cursor !== undefined) {
    const [receivedAt, id] = decodeCursor(query.cursor, CALLBACKS_LIST, ["integer", "string"]);
    after = or(
      lt(inboundCallbacks.receivedAt, Number(receivedAt)),
      and(eq(inboundCallbacks.receivedAt, Number(receivedAt)), lt(inboundCallbacks.id, String(id))),
    );
  }
  const rows = await ctx.r.db
    .select()
    .from(inboundCallbacks)
    .where(after)
    .orderBy(desc(inboundCallbacks.receivedAt), desc(inboundCallbacks.id))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toCallback, (last) =>
    encodeCursor(CALLBACKS_LIST, [last.receivedAt, last.id]),
  );
}

/**
 * Inbound SMS: stores each delivered message once (deduplicated by provider message id), resumes the oldest
 * matching `waiting_otp` run in the same transaction, audits every callback, and lets runs that start
 * waiting later take a stored message (`matchWaiting`, called by the worker's sweep).
 */
export function createInboundSms(r: RunsResources, secretsKey: Buffer) {
  const ctx: SmsContext = {
    r,
    box: createSecretBox(secretsKey),
    lastMatch: Number.NEGATIVE_INFINITY,
    anyPending: pendingQuery(r.db),
  };
  return {
    receiveSms: (delivery: SmsDelivery): Promise<SmsReceipt> => receiveSms(ctx, delivery),
    recordRejected: (rejection: CallbackRejection): Promise<void> => recordRejected(ctx, rejection),
    matchWaiting: (): Promise<number> => matchWaiting(ctx),
    listCallbacks: (query: ListQuery = {}): Promise<KeysetPage<InboundCallback>> => listCallbacks(ctx, query),
  };
}

/** The inbound-SMS verbs of one engine. */
export type InboundSms = ReturnType<typeof createInboundSms>;

/** A candidate run moved between the read and the resume (the compare-and-set did not hold). */
class RunMoved extends Error {
  override readonly name = "RunMoved";
}

function toCallback(row: typeof inboundCallbacks.$inferSelect): InboundCallback {
  return {
    id: row.id,
    provider: row.provider,
    outcome: row.outcome,
    reason: row.reason,
    message_id: row.providerMessageId,
    sender: row.sender,
    recipient: row.recipient,
    run_id: row.runId,
    received_at: new Date(row.receivedAt).toISOString(),
  };
}
