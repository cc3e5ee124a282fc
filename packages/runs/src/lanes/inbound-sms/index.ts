// The inbound-SMS lane: received messages, their one-time codes and the runs that wait for them.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export {
  CALLBACK_OUTCOMES,
  codeForPolicy,
  DEFAULT_SMS_CODE_PATTERN,
  InboundCallback,
  normalizeNumber,
  type SmsDelivery,
  type SmsReceipt,
} from "../../domain/inbound-sms.js";
export type { CallbackRejection } from "./inbound-sms.js";
