import { matchProtectedDomain } from "../providers.js";
import { droppedBecause, type HarExchange, isDocument } from "./har.js";
import type { ExtractorStrategy, PlanContext, ReconstructionInputs } from "./inputs.js";
import {
  clampConfidence,
  type FlowPlan,
  type PlannedStep,
  type StepConfidence,
  uniqueStepId,
} from "./plan.js";
import {
  fingerprintOf,
  isCardNumber,
  isRedacted,
  isSecretQueryParam,
  redactUrlSecrets,
  sensitiveKindOf,
} from "./sensitive.js";
import { looksDynamic, type Produced, producedLeaves, varNameOf } from "./values.js";

/*
 * The HAR planner: the requests that did the work become `http` steps in order; values that flow from a
 * response into a later request become `extract` + `${vars.…}`; passwords, card numbers and credential
 * query parameters (`?api_key=sk_live_…`, see `isSecretQueryParam`) become `${secrets.…}`; a one-time code becomes an `otp_gate` and `${gate.otp_code}`. Pure.
 */

/** Shortest response value that counts as flowing into a later request, per strategy. */
const MIN_VALUE: Record<ExtractorStrategy, number> = { strict: 8, balanced: 6, aggressive: 4 };
/** Request headers a replay sends again (others are the browser's own). */
const DROPPED_HEADERS =
  /^(host|user-agent|accept(-.*)?|origin|referer|connection|content-length|content-type|cookie|sec-.*|pragma|cache-control|upgrade-insecure-requests|dnt|priority|idempotency-key|:.*)$/;
const IDENTITY_KEYS = /^(email|e_mail|username|user_name|login|user|phone)$/i;

interface State {
  ctx: PlanContext;
  steps: PlannedStep[];
  ids: Set<string>;
  produced: Produced[];
  varNames: Set<string>;
  extracts: Map<string, Record<string, string>>;
  secrets: Set<string>;
  params: Map<string, string>;
  confidence: StepConfidence[];
  approvals: FlowPlan["approvals"];
  otpGates: number;
}

/** The step that extracts `p` gets an `extract` entry (once) and `p` gets its var name. */
function useProduced(s: State, p: Produced): string {
  const ex = s.extracts.get(p.stepId) ?? {};
  if (!Object.values(ex).includes(p.path) || ex[p.varName] !== p.path) {
    ex[p.varName] = p.path;
    s.extracts.set(p.stepId, ex);
  }
  return `\${vars.${p.varName}}`;
}

function findProduced(s: State, value: string): Produced | undefined {
  for (let i = s.produced.length - 1; i >= 0; i--) {
    const p = s.produced[i];
    if (p !== undefined && p.value === value) return p;
  }
  return undefined;
}

function byFingerprint(s: State, fp: string): Produced | undefined {
  const f = s.ctx.fingerprint;
  if (f === undefined) return undefined;
  for (let i = s.produced.length - 1; i >= 0; i--) {
    const p = s.produced[i];
    if (p !== undefined && f(p.value) === fp) return p;
  }
  return undefined;
}

/** A string with every produced value inside it (whole, or as a `/`, `=`, `&` or space delimited part) replaced. */
function substitute(s: State, text: string, reasons: string[]): string {
  const whole = findProduced(s, text);
  if (whole !== undefined) return useProduced(s, whole);
  const fp = fingerprintOf(text);
  if (fp !== undefined) {
    const hit = byFingerprint(s, fp);
    if (hit === undefined) {
      reasons.push("a redacted credential that no earlier response issued");
      return text;
    }
    return text.replace(/\[redacted:[0-9a-f]+\]/, useProduced(s, hit));
  }
  if (s.ctx.strategy === "strict") return text;
  return text
    .split(/([/=&?\s])/)
    .map((part) => {
      const p = part.length >= MIN_VALUE[s.ctx.strategy] ? findProduced(s, part) : undefined;
      return p === undefined ? part : useProduced(s, p);
    })
    .join("");
}

function secretRef(s: State, key: string): string {
  const name = varNameOf(key);
  s.secrets.add(name);
  return `\${secrets.${name}}`;
}

/** A request body with secrets, the one-time code, flowing values and identities turned into references. */
function templateBody(s: State, value: unknown, key: string | undefined, acc: BodyAcc): unknown {
  if (typeof value === "string") {
    const kind = key === undefined ? undefined : sensitiveKindOf(key);
    if (kind === "otp") {
      acc.otp = true;
      return "${gate.otp_code}";
    }
    if (kind === "password" || kind === "card" || isCardNumber(value))
      return secretRef(s, key ?? "card_number");
    if (isRedacted(value)) {
      acc.reasons.push(`a redacted value (${key ?? "body"}) of unknown kind`);
      return secretRef(s, key ?? "value");
    }
    const p = value.length >= MIN_VALUE[s.ctx.strategy] ? findProduced(s, value) : undefined;
    if (p !== undefined) return useProduced(s, p);
    if (key !== undefined && IDENTITY_KEYS.test(key)) {
      const name = varNameOf(key);
      s.params.set(name, value);
      return `\${params.${name}}`;
    }
    if (looksDynamic(value))
      acc.reasons.push(`a generated-looking value (${key ?? "body"}) no response issued`);
    return value;
  }
  if (typeof value === "number" && s.ctx.strategy === "aggressive" && Math.abs(value) >= 1000) {
    const p = findProduced(s, String(value));
    if (p !== undefined) return useProduced(s, p);
  }
  if (Array.isArray(value)) return value.map((v) => templateBody(s, v, key, acc));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, templateBody(s, v, k, acc)]));
  }
  return value;
}

interface BodyAcc {
  otp: boolean;
  reasons: string[];
}

function stepWords(x: HarExchange): string {
  const parts = x.url.pathname.split("/").filter((p) => p !== "" && p !== "api" && !looksDynamic(p));
  return `${x.method} ${parts.slice(-2).join(" ") || "root"}`;
}

/**
 * A query value as the flow sends it: one an earlier response issued becomes its var; a credential (by
 * name or format) a secret param, so the recorded value is never kept; anything else as `substitute` makes it.
 */
function queryValue(s: State, key: string, value: string, reasons: string[]): string {
  const produced = findProduced(s, value);
  if (produced !== undefined) return useProduced(s, produced);
  if (isSecretQueryParam(key, value)) return secretRef(s, key);
  return substitute(s, value, reasons);
}

function urlOf(s: State, x: HarExchange, reasons: string[]): string {
  const path = x.url.pathname
    .split("/")
    .map((seg) => {
      const out = seg === "" ? seg : substitute(s, decodeURIComponent(seg), reasons);
      if (out === decodeURIComponent(seg) && looksDynamic(seg))
        reasons.push(`a generated-looking id in the URL (${seg})`);
      return out === decodeURIComponent(seg) ? seg : out;
    })
    .join("/");
  const query = [...x.url.searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${queryValue(s, k, v, reasons)}`)
    .join("&");
  return `${x.url.origin}${path}${query === "" ? "" : `?${query}`}`;
}

function headersOf(s: State, x: HarExchange, reasons: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const h of x.headers) {
    if (DROPPED_HEADERS.test(h.name)) continue;
    if (h.value === "[redacted]") {
      reasons.push(`the ${h.name} header was redacted whole`);
      continue;
    }
    out[h.name === "authorization" ? "Authorization" : h.name] = substitute(s, h.value, reasons);
  }
  if (x.headers.some((h) => h.name === "cookie" && h.value !== "")) {
    reasons.push("the request sent cookies, which an http step does not carry");
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function addStep(s: State, x: HarExchange): void {
  const reasons: string[] = [];
  const id = uniqueStepId(stepWords(x), s.ids);
  const url = urlOf(s, x, reasons);
  const headers = headersOf(s, x, reasons);
  const acc: BodyAcc = { otp: false, reasons };
  const body = x.body === undefined ? undefined : templateBody(s, x.body, undefined, acc);
  if (x.opaqueBody) reasons.push("the request body was not recorded in a readable form");
  if (acc.otp) {
    s.otpGates += 1;
    const gateId = uniqueStepId(`otp ${id}`, s.ids);
    s.steps.push({ id: gateId, type: "otp_gate", prompt: "Enter the one-time code you were sent" });
    s.confidence.push({ step_id: gateId, confidence: 0.95, reasons: [] });
  }
  const provider = matchProtectedDomain(x.url.href, s.ctx.protectedDomains);
  if (provider !== undefined) s.approvals.push({ step_id: id, provider_domain: provider });
  s.steps.push({
    id,
    type: "http",
    method: x.method as "GET",
    url,
    ...(headers === undefined ? {} : { headers }),
    ...(body === undefined ? {} : { body }),
    ...(x.status >= 200 && x.status < 400 ? { expect: { status: [x.status] } } : {}),
  });
  const penalty = reasons.length * 0.2 + (x.opaqueBody ? 0.3 : 0);
  s.confidence.push({ step_id: id, confidence: clampConfidence(0.93 - penalty), reasons });
  for (const leaf of producedLeaves(
    x.responseJson,
    MIN_VALUE[s.ctx.strategy],
    s.ctx.strategy === "aggressive",
  )) {
    let name = varNameOf(leaf.key);
    const existing = s.produced.find((p) => p.varName === name);
    if (existing !== undefined && existing.value !== leaf.value) {
      for (let n = 2; s.varNames.has(name); n++) name = `${varNameOf(leaf.key)}_${n}`;
    }
    s.varNames.add(name);
    s.produced.push({ stepId: id, path: leaf.path, value: leaf.value, varName: name });
  }
}

/** Plans `http` steps from the HAR's work requests (see the module comment). */
export function planHttpFlow(inputs: ReconstructionInputs, ctx: PlanContext): FlowPlan {
  const har = inputs.har ?? [];
  const s: State = {
    ctx,
    steps: [],
    ids: new Set(),
    produced: [],
    varNames: new Set(),
    extracts: new Map(),
    secrets: new Set(),
    params: new Map(),
    confidence: [],
    approvals: [],
    otpGates: 0,
  };
  const dropped: FlowPlan["dropped"] = [];
  for (const x of har) {
    const why = droppedBecause(x) ?? (isDocument(x) && x.method === "GET" ? "page_load" : undefined);
    if (why !== undefined) dropped.push({ url: redactUrlSecrets(x.url), reason: why });
    else if (s.steps.length < 190) addStep(s, x);
  }
  for (const step of s.steps) {
    const ex = s.extracts.get(step.id);
    if (ex !== undefined && step.type === "http") step.extract = ex;
  }
  const first = har.find((x) => droppedBecause(x) === undefined);
  const start = inputs.startUrl ?? (first === undefined ? "" : redactUrlSecrets(first.url));
  return {
    kind: "http",
    name: `Reconstructed from ${start === "" ? "a HAR" : new URL(start).host}`,
    start_url: start,
    steps: s.steps,
    secrets: [...s.secrets].sort(),
    params: [...s.params].map(([key, value]) => (isRedacted(value) ? { key } : { key, default: value })),
    confidence: s.confidence,
    approvals: s.approvals,
    dropped,
  };
}
