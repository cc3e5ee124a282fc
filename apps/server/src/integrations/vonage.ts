import type { RunsEngine } from "@vetted/runs";
import type { SmsReceipt } from "@vetted/runs/inbound-sms";
import type { Context } from "hono";
import type { VonageSettings } from "../config.js";
import { ServerError } from "../errors.js";
import { isSha256, sameSecret, signParams } from "./vonage-signature.js";

/** The path Vonage calls with inbound SMS (GET or POST); open without the API token, it has its own auth. */
export const INBOUND_SMS_PATH = "/api/integrations/vonage/inbound-sms";
/** The header carrying the shared inbound token. */
export const INBOUND_TOKEN_HEADER = "x-vonage-inbound-token";
/** Query parameters that would carry the token in a URL (and so in logs): refused. */
const TOKEN_PARAMS = new Set([INBOUND_TOKEN_HEADER, "token", "inbound_token", "inbound-token"]);
/** Parameters naming the signature algorithm; only SHA-256 HMAC is accepted. */
const ALGORITHM_PARAMS = ["sig_method", "signature_method", "algorithm"];

/** A refusal: the error answered and the reason audited. */
class Refusal extends Error {
  constructor(
    readonly reason: string,
    readonly error: ServerError,
  ) {
    super(error.message);
  }
}

/** The query string and a JSON or form body, merged (the body wins); values as strings. */
async function collectParams(
  c: Context,
): Promise<{ query: Record<string, string>; params: Record<string, string> }> {
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.req.queries())) if (v[0] !== undefined) query[k] = v[0];
  const body: Record<string, string> = {};
  const type = (c.req.header("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (c.req.method === "POST" && type === "application/json") {
    let parsed: unknown;
    try {
      parsed = await c.req.json();
    } catch {
      throw new Refusal(
        "body_invalid",
        new ServerError("INVALID_JSON", "The callback body is not valid JSON."),
      );
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Refusal(
        "body_invalid",
        new ServerError("BAD_REQUEST", "The callback body must be a JSON object."),
      );
    }
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") body[k] = String(v);
    }
  } else if (
    c.req.method === "POST" &&
    (type === "application/x-www-form-urlencoded" || type === "multipart/form-data")
  ) {
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch {
      // A malformed form (a multipart body without its parts, a bad boundary) is the sender's error.
      throw new Refusal(
        "body_invalid",
        new ServerError("BAD_REQUEST", `The callback body is not a valid ${type} form.`),
      );
    }
    for (const [k, v] of Object.entries(form)) if (typeof v === "string") body[k] = v;
  } else if (c.req.method === "POST" && type !== "" && (c.req.header("Content-Length") ?? "0") !== "0") {
    throw new Refusal(
      "body_invalid",
      new ServerError("UNSUPPORTED_MEDIA_TYPE", `Send the callback as JSON or a form (got ${type}).`),
    );
  }
  return { query, params: { ...query, ...body } };
}

/** Checks the header token and the signature. @throws Refusal */
function authenticate(
  c: Context,
  settings: { inboundToken: string; signatureSecret: string; maxSkewS: number },
  query: Record<string, string>,
  params: Record<string, string>,
  nowMs: number,
): void {
  if (Object.keys(query).some((k) => TOKEN_PARAMS.has(k.toLowerCase()))) {
    throw new Refusal(
      "token_in_query",
      new ServerError(
        "UNAUTHORIZED",
        `Send the inbound token in the ${INBOUND_TOKEN_HEADER} header, never in the URL.`,
      ),
    );
  }
  const token = c.req.header(INBOUND_TOKEN_HEADER);
  if (token === undefined || !sameSecret(token, settings.inboundToken)) {
    throw new Refusal(
      token === undefined ? "token_missing" : "token_invalid",
      new ServerError("UNAUTHORIZED", `The ${INBOUND_TOKEN_HEADER} header is missing or wrong.`),
    );
  }
  for (const key of ALGORITHM_PARAMS) {
    const name = params[key];
    if (name !== undefined && !isSha256(name)) {
      throw new Refusal(
        "algorithm_unsupported",
        new ServerError(
          "SIGNATURE_ALGORITHM_UNSUPPORTED",
          `Signature algorithm ${name} is not accepted; configure Vonage to sign with HMAC-SHA256.`,
          { algorithm: name },
        ),
      );
    }
  }
  const sig = params.sig ?? "";
  const expected = signParams(params, settings.signatureSecret);
  if (!sameSecret(sig.toLowerCase(), expected)) {
    throw new Refusal(
      "signature_invalid",
      new ServerError("SIGNATURE_INVALID", "The signature does not match."),
    );
  }
  const timestamp = Number(params.timestamp);
  if (params.timestamp === undefined || params.timestamp.trim() === "" || !Number.isFinite(timestamp)) {
    throw new Refusal(
      "timestamp_missing",
      new ServerError("SIGNATURE_INVALID", "The signed callback has no timestamp."),
    );
  }
  const skew = Math.abs(nowMs / 1000 - timestamp);
  if (skew > settings.maxSkewS) {
    throw new Refusal(
      "timestamp_stale",
      new ServerError(
        "SIGNATURE_INVALID",
        `The callback's timestamp is ${Math.round(skew)} s off (at most ${settings.maxSkewS} s).`,
      ),
    );
  }
}

/** The message fields: `msisdn | from`, `to`, `text`, `messageId | message-id`. @throws Refusal */
function fieldsOf(params: Record<string, string>) {
  const sender = params.msisdn ?? params.from;
  const recipient = params.to;
  const messageId = params.messageId ?? params["message-id"];
  const missing = [
    sender === undefined ? "msisdn" : undefined,
    recipient === undefined ? "to" : undefined,
    messageId === undefined ? "messageId" : undefined,
    params.text === undefined ? "text" : undefined,
  ].filter((m) => m !== undefined);
  if (
    sender === undefined ||
    recipient === undefined ||
    messageId === undefined ||
    params.text === undefined
  ) {
    throw new Refusal(
      "fields_missing",
      new ServerError("BAD_REQUEST", `The callback lacks ${missing.join(", ")}.`, { missing }),
    );
  }
  return { sender, recipient, message_id: messageId, text: params.text };
}

/**
 * Handles one inbound-SMS callback: configuration (503), token in the query (401), header token (401),
 * algorithm (400), signature and timestamp (401 `SIGNATURE_INVALID`), fields; then the engine stores the
 * message once and resumes a matching waiting run. Every refusal is audited with its reason.
 */
export async function handleInboundSms(
  c: Context,
  runs: RunsEngine,
  settings: VonageSettings,
  nowMs = Date.now(),
): Promise<SmsReceipt> {
  let params: Record<string, string> = {};
  try {
    const { inboundToken, signatureSecret } = settings;
    if (inboundToken === undefined || signatureSecret === undefined) {
      throw new Refusal(
        "not_configured",
        new ServerError(
          "INTEGRATION_NOT_CONFIGURED",
          "Inbound SMS is off: set VETTED_VONAGE_INBOUND_TOKEN and VETTED_VONAGE_SIGNATURE_SECRET.",
        ),
      );
    }
    const collected = await collectParams(c);
    params = collected.params;
    authenticate(
      c,
      { inboundToken, signatureSecret, maxSkewS: settings.maxSkewS },
      collected.query,
      params,
      nowMs,
    );
    const fields = fieldsOf(params);
    return await runs.receiveSms({ provider: "vonage", ...fields });
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    await runs.recordInboundRejection({
      provider: "vonage",
      reason: err.reason,
      message_id: params.messageId ?? params["message-id"],
      sender: params.msisdn ?? params.from,
      recipient: params.to,
    });
    throw err.error;
  }
}
