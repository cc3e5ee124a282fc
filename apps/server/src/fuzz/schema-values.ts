import fc from "fast-check";
import { HOSTILE_STRINGS, hostileValue } from "./hostile.js";
import { type OpenApiDocument, resolveSchema, type SchemaNode } from "./openapi-operations.js";

/** What schema-driven values may refer to: real ids, paths inside and outside the roots, a local sink. */
export interface ValueContext {
  doc: OpenApiDocument;
  /** Real ids by parameter name (`job_id`, `run_id`, …). */
  ids: Record<string, string[]>;
  /** Paths inside the allowed root, outside it, and symlinks leading out. */
  paths: string[];
  /** Loopback URLs an `http` step may call (a local sink; the fuzzer never sends traffic elsewhere). */
  urls: string[];
  /** Only schema-valid shapes (no hostile fields, no missing or extra keys), to reach deeper code. */
  clean?: boolean;
}

const MAX_DEPTH = 6;
const PATH_KEY = /(dir|path|folder|root|source|output|target)s?$/i;
const URL_KEY = /url$/i;
const ID_KEY = /(^|_)id$/i;
const WORDS = ["a", "name", "checkout", "x", "report.pdf", "2026", "documents", "A1", "123456"];

/** Now and then a field holds something hostile instead of a schema-valid value. */
function sometimesHostile(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: hostileValue() });
}

function stringFor(node: SchemaNode, key: string, ctx: ValueContext): fc.Arbitrary<unknown> {
  if (URL_KEY.test(key)) {
    return ctx.clean === true
      ? fc.constantFrom(...ctx.urls)
      : fc.constantFrom(...ctx.urls, "not a url", "ftp://127.0.0.1/x", "http://");
  }
  if (PATH_KEY.test(key)) return fc.constantFrom(...ctx.paths);
  const ids = Object.values(ctx.ids).flat();
  if (ID_KEY.test(key) && ids.length > 0) return fc.constantFrom(...ids, "nope");
  const options: fc.Arbitrary<unknown>[] = [
    fc.constantFrom(...WORDS),
    fc.string({ minLength: node.minLength ?? 0, maxLength: Math.max(node.minLength ?? 0, 12) }),
  ];
  if (node.pattern !== undefined) {
    try {
      options.push(fc.stringMatching(new RegExp(node.pattern)).filter((s) => s.length < 200));
    } catch {
      // A pattern fast-check cannot generate from falls back to the other options.
    }
  }
  return fc.oneof(...options);
}

function numberFor(node: SchemaNode, integer: boolean): fc.Arbitrary<unknown> {
  const min = Math.max(node.minimum ?? -1_000_000, -1_000_000);
  const max = Math.min(node.maximum ?? 1_000_000, 1_000_000);
  if (min > max) return fc.constant(node.minimum ?? 0);
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function objectFor(node: SchemaNode, ctx: ValueContext, depth: number): fc.Arbitrary<unknown> {
  const properties = node.properties ?? {};
  const keys = Object.keys(properties);
  if (keys.length === 0) {
    const extra = typeof node.additionalProperties === "object" ? node.additionalProperties : {};
    const keyPattern = node.propertyNames?.pattern;
    const keys =
      keyPattern === undefined
        ? fc.constantFrom(...WORDS, "__proto__", "")
        : fc.oneof(
            fc.stringMatching(new RegExp(keyPattern)).filter((k) => k.length > 0 && k.length < 40),
            fc.constantFrom("x", "__proto__", "2026"),
          );
    return fc.dictionary(keys, valueFor(extra, ctx, depth + 1, "value"), { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const key of keys) {
    const valid = valueFor(properties[key] ?? {}, ctx, depth + 1, key);
    model[key] = ctx.clean === true ? valid : sometimesHostile(valid);
  }
  const required = (node.required ?? []).filter((key) => key in model);
  if (ctx.clean === true) return fc.record(model, { requiredKeys: required });
  return fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.record(model, { requiredKeys: required }) },
        { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
      ),
      fc.option(fc.tuple(fc.constantFrom("zz_extra", "__proto__", "constructor"), hostileValue()), {
        freq: 8,
      }),
    )
    .map(([value, extra]) => (extra === null ? value : { ...value, [extra[0]]: extra[1] }));
}

/** A value shaped like `schema` (JSON Schema as the OpenAPI document spells it), hostile now and then. */
export function valueFor(schema: SchemaNode, ctx: ValueContext, depth = 0, key = ""): fc.Arbitrary<unknown> {
  const node = resolveSchema(ctx.doc, schema);
  if (depth > MAX_DEPTH) return fc.constant(null);
  if (node.const !== undefined) return fc.constant(node.const);
  if (node.enum !== undefined && node.enum.length > 0) return fc.constantFrom(...node.enum);
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives !== undefined && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((alt) => valueFor(alt, ctx, depth, key)));
  }
  if (node.allOf !== undefined && node.allOf.length > 0) {
    const merged: SchemaNode = { type: "object", properties: {}, required: [] };
    for (const part of node.allOf) {
      const resolved = resolveSchema(ctx.doc, part);
      Object.assign(merged.properties ?? {}, resolved.properties);
      merged.required?.push(...(resolved.required ?? []));
    }
    return objectFor(merged, ctx, depth);
  }
  const type = Array.isArray(node.type) ? (node.type.find((t) => t !== "null") ?? "null") : node.type;
  switch (type) {
    case "object":
      return objectFor(node, ctx, depth);
    case "array":
      return fc.array(valueFor(node.items ?? {}, ctx, depth + 1, key), {
        minLength: Math.min(node.minItems ?? 0, 3),
        maxLength: Math.max(Math.min(node.maxItems ?? 3, 3), Math.min(node.minItems ?? 0, 3)),
      });
    case "string":
      return stringFor(node, key, ctx);
    case "integer":
      return numberFor(node, true);
    case "number":
      return numberFor(node, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.oneof(fc.constantFrom(...WORDS, ...HOSTILE_STRINGS.slice(0, 5)), fc.integer(), fc.boolean());
  }
}
