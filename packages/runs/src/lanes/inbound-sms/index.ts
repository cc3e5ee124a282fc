// The inbound-SMS lane: received messages, their one-time codes and the runs that wait for them.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export { type CallbackRejection, createInboundSms } from "./inbound-sms.js";
