import { webhookUrlProblem } from "../../domain/webhooks.js";
import type { HookResources } from "./resources.js";

/** Where a webhook URL may be delivered (the checked address to pin to), or why not. */
export type WebhookTarget =
  | { ok: true; address: string; family: 4 | 6 }
  /** `final`: the refusal does not depend on the network or time (credentials, a protected provider). */
  | { ok: false; reason: string; final: boolean };

/**
 * Judges a webhook URL, at creation and again before every delivery attempt: credentials in the URL and
 * a protected payment provider by name or IP literal are refused first (no DNS lookup is made for them);
 * then the outbound policy judges the addresses the host resolves to (link-local, metadata, this server's
 * own address and port on any local address, the deny and allow lists), and an address of a protected
 * provider is refused too.
 */
export async function judgeWebhookUrl(r: HookResources, url: string): Promise<WebhookTarget> {
  const problem = webhookUrlProblem(url, r.protectedDomains);
  if (problem !== undefined) return { ok: false, reason: problem, final: true };
  const d = await r.policy.decide(url, r.protectedDomains);
  if (d.kind === "unchecked") return { ok: false, reason: "it is not an http(s) URL", final: true };
  if (d.kind === "denied") {
    return { ok: false, reason: `the outbound policy denies ${d.host} (${d.rule})`, final: false };
  }
  if (d.kind === "unresolved") {
    return { ok: false, reason: `${d.host} does not resolve (${d.message})`, final: false };
  }
  if (d.protectedDomain !== undefined) {
    const reason = `${d.host} resolves to the protected payment provider ${d.protectedDomain}, which a webhook never posts to`;
    return { ok: false, reason, final: true };
  }
  return { ok: true, address: d.address, family: d.family };
}
