import { z } from "zod";

/*
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as far as reconstruction reads it, validated
 * with zod, and its entries normalised into the requests the planners work on. Pure.
 */

const NameValue = z.looseObject({ name: z.string(), value: z.string() });

/** One HAR entry's request. */
const HarRequest = z.looseObject({
  method: z.string().min(1).max(16),
  url: z.string().min(1).max(16_000),
  httpVersion: z.string(),
  headers: z.array(NameValue),
  queryString: z.array(NameValue).default([]),
  cookies: z.array(z.looseObject({ name: z.string(), value: z.string() })).default([]),
  headersSize: z.number(),
  bodySize: z.number(),
  postData: z
    .looseObject({
      mimeType: z.string(),
      text: z.string().optional(),
      params: z.array(z.looseObject({ name: z.string(), value: z.string().optional() })).optional(),
    })
    .optional(),
});

/** One HAR entry's response. */
const HarResponse = z.looseObject({
  status: z.number().int(),
  statusText: z.string(),
  httpVersion: z.string(),
  headers: z.array(NameValue),
  cookies: z.array(z.looseObject({ name: z.string(), value: z.string() })).default([]),
  content: z.looseObject({
    size: z.number(),
    mimeType: z.string().default(""),
    text: z.string().optional(),
    encoding: z.string().optional(),
  }),
  redirectURL: z.string(),
  headersSize: z.number(),
  bodySize: z.number(),
});

/** A HAR 1.2 document (`{ log: { version, creator, entries } }`). */
export const Har = z
  .object({
    log: z.looseObject({
      version: z.string(),
      creator: z.looseObject({ name: z.string(), version: z.string() }),
      pages: z.array(z.looseObject({ id: z.string() })).optional(),
      entries: z
        .array(
          z.looseObject({
            startedDateTime: z.string(),
            time: z.number(),
            request: HarRequest,
            response: HarResponse,
            timings: z.looseObject({}),
          }),
        )
        .max(20_000),
    }),
  })
  .meta({ id: "Har", description: "A HAR 1.2 document" });
/** A HAR 1.2 document. */
export type Har = z.infer<typeof Har>;

/** A request of a HAR as the planners see it. */
export interface HarExchange {
  index: number;
  method: string;
  url: URL;
  /** Request headers, names lower case. */
  headers: Array<{ name: string; value: string }>;
  requestMime: string;
  /** The request body parsed as JSON, or a form as an object of strings; undefined without a body. */
  body: unknown;
  /** True when the request had a body that is neither JSON nor a form (or was redacted whole). */
  opaqueBody: boolean;
  status: number;
  responseMime: string;
  /** The response body parsed as JSON, when it is JSON and was recorded. */
  responseJson: unknown;
  /** The response body text when it is HTML and was recorded. */
  responseHtml: string | undefined;
  responseHeaders: Array<{ name: string; value: string }>;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function requestBody(post: Har["log"]["entries"][number]["request"]["postData"]) {
  if (post === undefined) return { body: undefined, opaque: false, mime: "" };
  const mime = post.mimeType;
  const text = post.text ?? "";
  if (/json/i.test(mime) || /^[[{]/.test(text.trim())) {
    const parsed = parseJson(text);
    if (parsed.ok) return { body: parsed.value, opaque: false, mime };
  }
  if (/x-www-form-urlencoded/i.test(mime)) {
    return { body: Object.fromEntries(new URLSearchParams(text)), opaque: false, mime };
  }
  if (post.params !== undefined && post.params.length > 0) {
    return { body: Object.fromEntries(post.params.map((p) => [p.name, p.value ?? ""])), opaque: false, mime };
  }
  return { body: undefined, opaque: text !== "", mime };
}

/** The entries of a HAR in order (by start time, then position), normalised; unparseable URLs are skipped. */
export function harExchanges(har: Har): HarExchange[] {
  const entries = har.log.entries
    .map((e, i) => ({ e, i, t: Date.parse(e.startedDateTime) }))
    .sort((a, b) => (Number.isNaN(a.t) || Number.isNaN(b.t) || a.t === b.t ? a.i - b.i : a.t - b.t));
  const out: HarExchange[] = [];
  for (const { e, i } of entries) {
    let url: URL;
    try {
      url = new URL(e.request.url);
    } catch {
      continue;
    }
    const { body, opaque, mime } = requestBody(e.request.postData);
    const content = e.response.content;
    const text = content.encoding === "base64" ? undefined : content.text;
    const json =
      text !== undefined && /json/i.test(content.mimeType) ? parseJson(text) : { ok: false as const };
    out.push({
      index: i,
      method: e.request.method.toUpperCase(),
      url,
      headers: e.request.headers.map((h) => ({ name: h.name.toLowerCase(), value: h.value })),
      requestMime: mime,
      body,
      opaqueBody: opaque,
      status: e.response.status,
      responseMime: content.mimeType,
      responseJson: json.ok ? json.value : undefined,
      responseHtml: text !== undefined && /html/i.test(content.mimeType) ? text : undefined,
      responseHeaders: e.response.headers.map((h) => ({ name: h.name.toLowerCase(), value: h.value })),
    });
  }
  return out;
}

const STATIC_EXT = /\.(css|js|mjs|map|png|jpe?g|gif|svg|webp|avif|ico|woff2?|ttf|otf|eot|mp4|webm|mp3)$/i;
const STATIC_MIME = /^(image|font|audio|video)\/|css|javascript|ecmascript/i;
const ANALYTICS_HOSTS =
  /(^|\.)(google-analytics\.com|googletagmanager\.com|doubleclick\.net|segment\.(io|com)|mixpanel\.com|hotjar\.com|plausible\.io|amplitude\.com|sentry\.io|newrelic\.com|nr-data\.net|clarity\.ms|facebook\.net)$/i;
const ANALYTICS_PATH = /(^|\/)(analytics|collect|beacon|track|telemetry|metrics|pixel|rum)(\/|$|\?)/i;

/** Why a request is left out of a reconstructed flow, or undefined when it is part of the work. */
export function droppedBecause(x: HarExchange): "static_asset" | "analytics" | "preflight" | undefined {
  if (x.method === "OPTIONS") return "preflight";
  if (ANALYTICS_HOSTS.test(x.url.hostname) || ANALYTICS_PATH.test(x.url.pathname)) return "analytics";
  if (STATIC_EXT.test(x.url.pathname) || STATIC_MIME.test(x.responseMime)) return "static_asset";
  if (x.url.pathname === "/favicon.ico") return "static_asset";
  return undefined;
}

/** True for a page load (an HTML document fetched or posted by the browser), not an API call. */
export function isDocument(x: HarExchange): boolean {
  return /html/i.test(x.responseMime) || (x.status >= 300 && x.status < 400 && x.method === "GET");
}
