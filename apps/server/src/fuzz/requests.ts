import fc from "fast-check";
import {
  BAD_JSON_TEXTS,
  HOSTILE_CURSORS,
  HOSTILE_NUMBER_TEXTS,
  HOSTILE_STRINGS,
  hostileValue,
} from "./hostile.js";
import { deepArrayText, deepObjectText, RawJson, replaceLeaf, toJsonText } from "./json-text.js";
import type { OperationSpec, ParameterSpec } from "./openapi-operations.js";
import { type ValueContext, valueFor } from "./schema-values.js";

/** One request the fuzzer sends. */
export interface FuzzRequest {
  /** The operation it was generated for, e.g. `GET /api/jobs/{job_id}/audit`. */
  operation: string;
  method: string;
  /** Path and query, already encoded. */
  target: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** True when a 200 answer is an event stream (the fuzzer reads the head and hangs up). */
  streams: boolean;
}

/** Just past the limit, or deep enough to overflow a recursive parser or serializer. */
const DEPTH = fc.oneof(fc.integer({ min: 65, max: 200 }), fc.integer({ min: 3000, max: 8000 }));

const PRINTABLE = /^[\x20-\x7e]*$/;

/** Percent-encodes any string; lone surrogates become the (invalid UTF-8) bytes of an encoded surrogate. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return `${encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, ""))}%ED%A0%80`;
  }
}

function pathValue(param: ParameterSpec, ctx: ValueContext): fc.Arbitrary<string> {
  const real = ctx.ids[param.name] ?? [];
  const hostile = fc.constantFrom(...HOSTILE_STRINGS, ...HOSTILE_NUMBER_TEXTS).filter((s) => s.length > 0);
  return fc.oneof(
    {
      weight: real.length > 0 ? 6 : 0,
      arbitrary: real.length > 0 ? fc.constantFrom(...real) : fc.constant("x"),
    },
    { weight: 3, arbitrary: hostile.map((s) => encode(s)) },
    { weight: 1, arbitrary: fc.constantFrom("..", "%2e%2e", "a%2Fb", "%00", "%", "%zz", "a/b", ".") },
  );
}

function queryValue(param: ParameterSpec, ctx: ValueContext): fc.Arbitrary<string> {
  const hostile =
    param.name === "cursor"
      ? fc.constantFrom(...HOSTILE_CURSORS)
      : fc.constantFrom(...HOSTILE_NUMBER_TEXTS, ...HOSTILE_STRINGS);
  const valid = valueFor(param.schema, ctx, 0, param.name).map((v) =>
    typeof v === "string" ? v : toJsonText(v),
  );
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: hostile });
}

function queryString(op: OperationSpec, ctx: ValueContext): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === "query");
  const pairs = params.map((p) =>
    fc.option(
      queryValue(p, ctx).map((v) => `${encode(p.name)}=${encode(v)}`),
      { freq: 2 },
    ),
  );
  const extra = fc.option(
    fc.constantFrom("zz=1", "cursor=a&cursor=b", "limit=1&limit=2", "%zz=1", "a[b]=1", "="),
    {
      freq: 6,
    },
  );
  return fc.tuple(fc.tuple(...pairs), extra).map(([chosen, more]) => {
    const parts = [...chosen, more].filter((p): p is string => p !== null);
    return parts.length === 0 ? "" : `?${parts.join("&")}`;
  });
}

function headers(op: OperationSpec): fc.Arbitrary<Record<string, string>> {
  const value = fc.constantFrom(...HOSTILE_STRINGS, ...HOSTILE_NUMBER_TEXTS, '"1"', 'W/"1"', '"1e309"', "*");
  const named = op.parameters.filter((p) => p.in === "header").map((p) => p.name);
  const names = [...named, ...(op.streams ? ["last-event-id"] : [])];
  return fc
    .tuple(
      ...names.map((name) =>
        fc.option(
          value.map((v) => [name, v] as const),
          { freq: 2 },
        ),
      ),
    )
    .map((entries) => {
      const out: Record<string, string> = {};
      for (const entry of entries) {
        if (entry !== null && PRINTABLE.test(entry[1]) && entry[1].length < 4000) out[entry[0]] = entry[1];
      }
      return out;
    });
}

interface BodyChoice {
  body: string | undefined;
  contentType: string | undefined;
}

function body(op: OperationSpec, ctx: ValueContext): fc.Arbitrary<BodyChoice> {
  const json = (text: string): BodyChoice => ({ body: text, contentType: "application/json" });
  const schemaBody =
    op.body === undefined ? fc.constant(json("{}")) : valueFor(op.body, ctx).map((v) => json(toJsonText(v)));
  const cleanBody =
    op.body === undefined
      ? fc.constant(json("{}"))
      : valueFor(op.body, { ...ctx, clean: true }).map((v) => json(toJsonText(v)));
  const deepInside =
    op.body === undefined
      ? fc.constant(json(deepArrayText(100)))
      : fc
          .tuple(valueFor(op.body, { ...ctx, clean: true }), fc.nat(), DEPTH, fc.boolean())
          .map(([value, pick, depth, arrays]) =>
            json(
              toJsonText(
                replaceLeaf(value, pick, new RawJson(arrays ? deepArrayText(depth) : deepObjectText(depth))),
              ),
            ),
          );
  return fc.oneof(
    { weight: 5, arbitrary: cleanBody },
    { weight: 2, arbitrary: deepInside },
    { weight: 5, arbitrary: schemaBody },
    {
      weight: op.body === undefined ? 4 : 1,
      arbitrary: fc.constant({ body: undefined, contentType: undefined }),
    },
    { weight: 1, arbitrary: hostileValue().map((v) => json(toJsonText(v))) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_JSON_TEXTS).map(json) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(DEPTH, fc.boolean())
        .map(([depth, arrays]) => json(arrays ? deepArrayText(depth) : deepObjectText(depth))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          schemaBody,
          fc.constantFrom(
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "",
          ),
        )
        .map(([b, type]) => ({
          body: b.body,
          contentType: type === "" ? undefined : type,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        json(`"${"a".repeat(1_100_000)}"`),
        json(`{"a":"${"\\u0000".repeat(2000)}"}`),
      ),
    },
  );
}

/** Requests for one operation: schema-shaped (hostile now and then), malformed, oversized and deep. */
export function requestsFor(op: OperationSpec, ctx: ValueContext): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === "path");
  const method = fc.oneof(
    { weight: 20, arbitrary: fc.constant(op.method) },
    { weight: 1, arbitrary: fc.constantFrom("PUT", "DELETE", "PATCH", "OPTIONS") },
  );
  return fc
    .tuple(
      method,
      fc.tuple(...pathParams.map((p) => pathValue(p, ctx))),
      queryString(op, ctx),
      headers(op),
      body(op, ctx),
    )
    .map(([verb, values, query, extraHeaders, chosen]) => {
      let path = op.path;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, values[i] ?? "x");
      });
      const withBody = verb !== "GET" && chosen.body !== undefined;
      return {
        operation: `${op.method} ${op.path}`,
        method: verb,
        target: `${path}${query}`,
        headers: {
          ...extraHeaders,
          ...(withBody && chosen.contentType !== undefined ? { "content-type": chosen.contentType } : {}),
        },
        body: withBody ? chosen.body : undefined,
        streams: op.streams,
      };
    });
}

/** Requests for every operation of the document; operations taking a body come up three times as often. */
export function anyRequest(ops: readonly OperationSpec[], ctx: ValueContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    ...ops.map((op) => ({ weight: op.body === undefined ? 1 : 3, arbitrary: requestsFor(op, ctx) })),
  );
}
