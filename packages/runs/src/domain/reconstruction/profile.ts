import { matchProtectedDomain } from "../providers.js";
import { droppedBecause, type HarExchange, isDocument } from "./har.js";
import { buildsFormInScript, type HtmlSummary } from "./html.js";
import type { ExtractorStrategy, PlanContext, ReconstructionInputs } from "./inputs.js";
import { sensitiveKindOf } from "./sensitive.js";

/** What a profile may notice in the artifacts. */
export const PROFILE_SIGNALS = [
  "captcha",
  "otp",
  "cloudflare_challenge",
  "three_ds",
  "login_form",
  "script_built_form",
  "payment_provider",
  "cookie_session",
  "json_api",
  "form_post",
] as const;
/** A profile signal. */
export type ProfileSignal = (typeof PROFILE_SIGNALS)[number];

/** The two kinds of site: replayable requests (`api-centric`) or a page that must be driven (`ui-centric`). */
export const PROFILE_KINDS = ["api-centric", "ui-centric"] as const;

/** A resolved profile (`POST /api/profiles/resolve`). */
export interface Profile {
  profile: (typeof PROFILE_KINDS)[number];
  signals: ProfileSignal[];
  har_alignment_score: number;
  dom_alignment_score: number;
  recommended_manual_checkpoints: Array<{ step_hint: string; reason: ProfileSignal }>;
  manual_handoff_required: boolean;
  unsupported_reason: string | null;
}

/** The HAR alignment a strategy needs to call a site api-centric. */
const API_THRESHOLD: Record<ExtractorStrategy, number> = { strict: 0.8, balanced: 0.6, aggressive: 0.4 };

const CAPTCHA = /captcha|cf-turnstile|turnstile/i;
const CAPTCHA_HOSTS =
  /(^|\.)(recaptcha\.net|hcaptcha\.com|challenges\.cloudflare\.com)$|google\.com\/recaptcha/i;
const THREE_DS_URL = /(^|[/._-])(3ds2?|three-?d-?secure|acs)([/._-]|$)/i;

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function leafKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) leafKeys(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      leafKeys(v, out);
    }
  }
  return out;
}

/** The requests that did the work: neither static assets, analytics, nor plain page loads. */
export function workRequests(har: readonly HarExchange[]): HarExchange[] {
  return har.filter((x) => droppedBecause(x) === undefined && !(isDocument(x) && x.method === "GET"));
}

function harSignals(har: readonly HarExchange[], ctx: PlanContext, s: Set<ProfileSignal>): void {
  for (const x of har) {
    const url = x.url.href;
    if (CAPTCHA_HOSTS.test(x.url.hostname) || /recaptcha|hcaptcha|turnstile/i.test(url)) s.add("captcha");
    const mitigated = x.responseHeaders.find((h) => h.name === "cf-mitigated")?.value;
    if (mitigated === "challenge" || x.url.pathname.startsWith("/cdn-cgi/challenge-platform")) {
      s.add("cloudflare_challenge");
    }
    if (THREE_DS_URL.test(x.url.pathname)) s.add("three_ds");
    if (matchProtectedDomain(x.url.href, ctx.protectedDomains) !== undefined) s.add("payment_provider");
    if (x.headers.some((h) => h.name === "cookie" && h.value !== "")) s.add("cookie_session");
    const kinds = leafKeys(x.body).map(sensitiveKindOf);
    if (kinds.includes("otp")) s.add("otp");
    if (kinds.includes("password")) s.add("login_form");
    if (kinds.includes("card")) s.add("payment_provider");
    if (x.responseHtml !== undefined) htmlSignals(htmlTextSignals(x.responseHtml), s);
  }
  const work = workRequests(har);
  if (work.some((x) => !isDocument(x) && (/json/i.test(x.responseMime) || /json/i.test(x.requestMime)))) {
    s.add("json_api");
  }
  if (work.some((x) => isDocument(x) && x.method !== "GET")) s.add("form_post");
}

/** Signals read from raw HTML text alone (pages a HAR recorded). */
function htmlTextSignals(html: string): Pick<HtmlSummary, "text" | "markers" | "sources"> {
  const lower = html.toLowerCase();
  return { text: lower.slice(0, 200_000), markers: [], sources: [] };
}

function htmlSignals(h: Pick<HtmlSummary, "text" | "markers" | "sources">, s: Set<ProfileSignal>): void {
  if (h.markers.some((m) => CAPTCHA.test(m)) || h.sources.some((src) => CAPTCHA.test(src))) s.add("captcha");
  if (/g-recaptcha|h-captcha|cf-turnstile/.test(h.text)) s.add("captcha");
  if (/just a moment|checking your browser|cf-chl|challenge-platform/.test(h.text))
    s.add("cloudflare_challenge");
  if (/3-d secure|3d secure|authenticate your payment|three-d-secure/.test(h.text)) s.add("three_ds");
}

function controlSignals(html: HtmlSummary, s: Set<ProfileSignal>): void {
  htmlSignals(html, s);
  for (const c of html.controls) {
    if (c.type === "password") s.add("login_form");
    if (c.autocomplete === "one-time-code" || (c.name !== undefined && sensitiveKindOf(c.name) === "otp"))
      s.add("otp");
    if (c.autocomplete?.startsWith("cc-") === true) s.add("payment_provider");
  }
  if (buildsFormInScript(html)) s.add("script_built_form");
}

function eventSignals(inputs: ReconstructionInputs, s: Set<ProfileSignal>): void {
  for (const e of inputs.events ?? []) {
    if (e.kind !== "type" || e.secret === undefined) continue;
    if (e.secret.kind === "otp") s.add("otp");
    if (e.secret.kind === "password") s.add("login_form");
    if (e.secret.kind === "card") s.add("payment_provider");
  }
}

/** 0–1: how much of the HAR's work is done by replayable JSON or form requests. */
export function harAlignment(har: readonly HarExchange[] | undefined): number {
  if (har === undefined) return 0;
  const work = workRequests(har);
  if (work.length === 0) return 0;
  const api = work.filter((x) => !isDocument(x));
  const opaque = api.filter((x) => x.opaqueBody).length;
  return round((api.length - opaque * 0.5) / work.length);
}

function selectorQuality(c: HtmlSummary["controls"][number]): number {
  if (c.testId !== undefined) return 0.95;
  if (c.label !== undefined || (c.tag === "button" && c.text !== "")) return 0.9;
  if (c.id !== undefined) return 0.8;
  if (c.name !== undefined) return 0.7;
  return 0.4;
}

/** 0–1: how well the page can be driven by selectors (recorded targets, or the static form's fields). */
export function domAlignment(inputs: ReconstructionInputs): number {
  const targets = (inputs.events ?? []).flatMap((e) => ("target" in e ? [e.target] : []));
  if (targets.length > 0) {
    const best = targets.map((t) => Math.max(...t.selectors.map((sel) => sel.score ?? 0.5)));
    return round(best.reduce((a, b) => a + b, 0) / best.length);
  }
  const html = inputs.html;
  if (html === undefined) return 0;
  if (html.controls.length === 0) return buildsFormInScript(html) ? 0.3 : 0;
  const q = html.controls.map(selectorQuality);
  return round(q.reduce((a, b) => a + b, 0) / q.length);
}

const CHECKPOINTS: Partial<Record<ProfileSignal, string>> = {
  otp: "before the request or field that submits the one-time code",
  three_ds: "when the bank's 3-D Secure challenge appears after paying",
  captcha: "where the page shows a CAPTCHA",
  cloudflare_challenge: "at the first page load (a Cloudflare challenge stands in front of the site)",
  payment_provider: "before the request to the payment provider",
};

/**
 * Classifies the artifacts: `api-centric` when the HAR shows the work done by replayable JSON or form
 * requests (alignment at least 0.8 / 0.6 / 0.4 for strict / balanced / aggressive) and no CAPTCHA or
 * Cloudflare challenge stands in the way, else `ui-centric`.
 */
export function resolveProfile(inputs: ReconstructionInputs, ctx: PlanContext): Profile {
  const s = new Set<ProfileSignal>();
  if (inputs.har !== undefined) harSignals(inputs.har, ctx, s);
  if (inputs.html !== undefined) controlSignals(inputs.html, s);
  eventSignals(inputs, s);
  const har = harAlignment(inputs.har);
  const dom = domAlignment(inputs);
  const blocked = s.has("captcha") || s.has("cloudflare_challenge");
  const scriptOnly =
    s.has("script_built_form") && (inputs.har === undefined || har < API_THRESHOLD[ctx.strategy]);
  const api = !blocked && !scriptOnly && har >= API_THRESHOLD[ctx.strategy];
  const signals = PROFILE_SIGNALS.filter((sig) => s.has(sig));
  const handoff = blocked || (s.has("three_ds") && ctx.strategy !== "aggressive");
  let unsupported: string | null = null;
  if (har === 0 && dom === 0 && (inputs.events ?? []).length === 0) {
    unsupported =
      "The artifacts hold no replayable request, no form and no recorded action to rebuild a flow from.";
  } else if (s.has("cloudflare_challenge") && ctx.strategy === "strict") {
    unsupported = "A Cloudflare challenge guards the site; a person has to pass it (strict strategy).";
  }
  return {
    profile: api ? "api-centric" : "ui-centric",
    signals,
    har_alignment_score: har,
    dom_alignment_score: dom,
    recommended_manual_checkpoints: signals.flatMap((sig) => {
      const hint = CHECKPOINTS[sig];
      return hint === undefined ? [] : [{ step_hint: hint, reason: sig }];
    }),
    manual_handoff_required: handoff,
    unsupported_reason: unsupported,
  };
}
