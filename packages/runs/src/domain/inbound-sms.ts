import { compileUserRegex } from "@vetted/store/limits";
import { RE2JS } from "re2js";
import { z } from "zod";

/** The code an `inbound_sms` OTP policy looks for when it names no `code_pattern`: six digits. */
export const DEFAULT_SMS_CODE_PATTERN = "\\b(\\d{6})\\b";

/** What {@link checkOtpPolicy} reads of a template's OTP policy. */
export interface SmsOtpPolicy {
  source: "manual" | "inbound_messages" | "inbound_sms";
  to?: string | undefined;
  sender?: string | undefined;
  code_pattern?: string | undefined;
}

/** A phone number compared by its digits only (`+44 7700 900123` = `447700900123`). */
export function normalizeNumber(value: string): string {
  return value.replace(/[^0-9A-Za-z]/g, "").toLowerCase();
}

/** Refinement of the OTP policy: `inbound_sms` needs `to`; a `code_pattern` must compile under RE2. */
export function checkOtpPolicy(otp: SmsOtpPolicy, ctx: z.RefinementCtx): void {
  if (otp.source === "inbound_sms" && (otp.to === undefined || normalizeNumber(otp.to) === "")) {
    ctx.addIssue({
      code: "custom",
      path: ["to"],
      message: "source inbound_sms needs the number codes are texted to",
    });
  }
  if (otp.code_pattern !== undefined) {
    try {
      compileUserRegex(otp.code_pattern);
    } catch (err) {
      ctx.addIssue({
        code: "custom",
        path: ["code_pattern"],
        message: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

/** One inbound SMS as the matching sees it. */
export interface SmsFacts {
  sender: string;
  recipient: string;
  text: string;
}

/**
 * The one-time code `sms` carries for a run with this OTP policy, or undefined when the policy does not
 * take SMS, the message went to another number, came from another sender, or holds no code. The code is
 * the pattern's first capture group (the whole match when it has none); matching is RE2 (linear time).
 */
export function codeForPolicy(otp: SmsOtpPolicy, sms: SmsFacts): string | undefined {
  if (otp.source !== "inbound_sms" || otp.to === undefined) return undefined;
  if (normalizeNumber(otp.to) !== normalizeNumber(sms.recipient)) return undefined;
  if (otp.sender !== undefined && normalizeNumber(otp.sender) !== normalizeNumber(sms.sender))
    return undefined;
  const pattern = otp.code_pattern ?? DEFAULT_SMS_CODE_PATTERN;
  compileUserRegex(pattern);
  const matcher = RE2JS.compile(pattern).matcher(sms.text);
  if (!matcher.find()) return undefined;
  const code = matcher.groupCount() >= 1 ? matcher.group(1) : matcher.group(0);
  return code === null || code === "" ? undefined : code;
}

/** What happened to one callback of a messaging provider. */
export const CALLBACK_OUTCOMES = ["accepted", "duplicate", "rejected"] as const;

/** One audited callback of a messaging provider (never the message text). */
export const InboundCallback = z
  .object({
    id: z.string(),
    provider: z.string(),
    outcome: z.enum(CALLBACK_OUTCOMES),
    reason: z.string().nullable().meta({ description: "Why it was rejected (or stored without a run)" }),
    message_id: z.string().nullable(),
    sender: z.string().nullable(),
    recipient: z.string().nullable(),
    run_id: z.string().nullable().meta({ description: "The run the message resumed" }),
    received_at: z.string(),
  })
  .meta({ id: "InboundCallback" });
/** One audited callback of a messaging provider. */
export type InboundCallback = z.infer<typeof InboundCallback>;

/** An inbound SMS as a provider integration hands it to the engine. */
export interface SmsDelivery {
  provider: string;
  message_id: string;
  sender: string;
  recipient: string;
  text: string;
}

/** What the engine did with an inbound SMS. */
export interface SmsReceipt {
  ok: true;
  duplicate: boolean;
  message_id: string;
  /** The run it resumed, or null (stored for a run that starts waiting later). */
  run_id: string | null;
}
