import { randomBytes } from "node:crypto";
import { runTransaction } from "@vetted/store";
import { and, desc, eq, gte, isNull, or } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { REDACTED } from "../domain/transitions.js";
import { createSecretBox } from "../kernel/secret-box.js";
import { inboundMessages } from "../store/schema.js";

/** What an OTP source is asked for: the newest code for a run, received since its gate opened. */
export interface OtpRequest {
  run_id: string;
  /** Epoch ms: messages received before this are stale. */
  since: number;
}

/**
 * The port through which a run gets a one-time code it was not handed directly. Takes (consumes) a code;
 * `undefined` when none is available.
 */
export interface OtpSource {
  takeCode(request: OtpRequest): Promise<string | undefined>;
}

/** A message as the messaging integration delivers it. */
export interface InboundMessage {
  /** The run the message is addressed to; null/absent = any run waiting for a code. */
  run_id?: string | undefined;
  sender?: string | undefined;
  body: string;
}

/** An {@link OtpSource} backed by the `runs_inbound_messages` table, with a way to record messages. */
export interface InboundMessagesOtpSource extends OtpSource {
  receive(message: InboundMessage): Promise<{ id: string }>;
}

const CODE = /\b(\d{4,8})\b/;

/** Extracts the first 4–8 digit code from a message body. */
export function extractOtpCode(body: string): string | undefined {
  return CODE.exec(body)?.[1];
}

/**
 * Creates the inbound-messages OTP source over `db` (the messaging integration writes via `receive`). With
 * `secretsKey`, message bodies are stored encrypted (AES-256-GCM), so no code is ever written in plain; a
 * body that does not decrypt is read as plain text (messages stored without a key). A consumed message's
 * body is erased.
 */
export function createInboundMessagesOtpSource(options: {
  db: LibSQLDatabase;
  clock?: { now(): number };
  secretsKey?: Buffer | undefined;
}): InboundMessagesOtpSource {
  const { db } = options;
  const now = () => options.clock?.now() ?? Date.now();
  const box = options.secretsKey === undefined ? undefined : createSecretBox(options.secretsKey);
  const contextOf = (id: string) => `inbound:${id}`;
  const readBody = (id: string, body: string) => box?.open(body, contextOf(id)) ?? body;
  return {
    async receive(message) {
      const id = `msg_${randomBytes(10).toString("base64url")}`;
      await runTransaction(db, (tx) =>
        tx.insert(inboundMessages).values({
          id,
          runId: message.run_id ?? null,
          sender: message.sender ?? null,
          body: box === undefined ? message.body : box.seal(message.body, contextOf(id)),
          receivedAt: now(),
        }),
      );
      return { id };
    },
    takeCode(request) {
      return runTransaction(db, async (tx) => {
        const candidates = await tx
          .select()
          .from(inboundMessages)
          .where(
            and(
              or(eq(inboundMessages.runId, request.run_id), isNull(inboundMessages.runId)),
              gte(inboundMessages.receivedAt, request.since),
              isNull(inboundMessages.consumedAt),
              // Provider SMS go to runs whose policy names their number (see inbound-sms.ts).
              isNull(inboundMessages.provider),
            ),
          )
          .orderBy(desc(inboundMessages.receivedAt))
          .limit(20);
        for (const message of candidates) {
          const code = extractOtpCode(readBody(message.id, message.body));
          if (code === undefined) continue;
          await tx
            .update(inboundMessages)
            .set({ consumedAt: now(), body: REDACTED })
            .where(eq(inboundMessages.id, message.id));
          return code;
        }
        return undefined;
      });
    },
  };
}
