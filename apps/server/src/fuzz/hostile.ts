import fc from "fast-check";
import { deepArrayText, deepObjectText, RawJson } from "./json-text.js";

/** Numbers as query or path text: non-finite, negative zero, huge, fractional, hexadecimal, empty. */
export const HOSTILE_NUMBER_TEXTS = [
  "1e309",
  "-1e309",
  "Infinity",
  "-Infinity",
  "NaN",
  "-0",
  "0",
  "-1",
  "1.5",
  "1e3",
  "0x10",
  "9007199254740993",
  "99999999999999999999999",
  " ",
  "",
  "null",
  "true",
] as const;

/** Strings that have broken servers: traversal, NUL, lone surrogates, injection, regex bombs, huge. */
export const HOSTILE_STRINGS = [
  "",
  " ",
  ".",
  "..",
  "../..",
  "../../../../etc/passwd",
  "/etc/passwd",
  "/",
  "//",
  "C:\\Windows\\System32",
  "\\\\server\\share",
  "\u0000",
  "a\u0000b",
  "%00",
  "%2e%2e%2f",
  "\uD800",
  "\uFFFF",
  "🙂".repeat(50),
  "\u202Eevil",
  "a".repeat(5000),
  "${secrets.card}",
  "${vars.x}",
  "${",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "^(a+)+$",
  "(",
  "[",
  "\\",
  "null",
  "NaN",
  "__proto__",
  "constructor",
  "job_",
  "run_nope",
  "flow_../../x",
] as const;

/** Cursors a list never made, including base64url spellings of non-finite numbers. */
export const HOSTILE_CURSORS = [
  ...HOSTILE_NUMBER_TEXTS,
  "abc",
  "!!!",
  "%00",
  "a".repeat(600),
  Buffer.from("1e309").toString("base64url"),
  Buffer.from("Infinity").toString("base64url"),
  Buffer.from("-1").toString("base64url"),
  Buffer.from("NaN").toString("base64url"),
  Buffer.from("1e309:job_x").toString("base64url"),
  Buffer.from("Infinity:run_x").toString("base64url"),
  Buffer.from("1e309:1e309:1e309").toString("base64url"),
  Buffer.from("NaN:NaN:NaN").toString("base64url"),
  Buffer.from("0:x:y:z").toString("base64url"),
  Buffer.from("::").toString("base64url"),
  Buffer.from("\u0000").toString("base64url"),
] as const;

/** A hostile JSON leaf: raw non-finite numbers, deep nesting, hostile strings, wrong types. */
export function hostileLeaf(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(
      new RawJson("1e309"),
      new RawJson("-1e309"),
      new RawJson("-0"),
      new RawJson("1e-400"),
      new RawJson("123456789012345678901234567890"),
      -1,
      0,
      2 ** 53 + 2,
      1.5,
      true,
      null,
      [],
      {},
    ),
    fc.integer({ min: 65, max: 6000 }).map((depth) => new RawJson(deepArrayText(depth))),
    fc.integer({ min: 65, max: 6000 }).map((depth) => new RawJson(deepObjectText(depth))),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 40 }),
  );
}

/** A small hostile JSON value: a leaf, or a short array/object of them. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileLeaf() },
    { weight: 1, arbitrary: fc.array(hostileLeaf(), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileLeaf(), { maxKeys: 3 }) },
  );
}

/** Text that is not JSON at all, or is JSON of the wrong shape. */
export const BAD_JSON_TEXTS = [
  "{",
  '{"a":}',
  "nul",
  "[1,]",
  "{'a':1}",
  '{"a":1}}',
  "\u0000",
  "\uFEFF{}",
  "[]",
  "null",
  '"text"',
  "1e309",
  "-0",
  '{"__proto__":{"polluted":true}}',
  `{"a":"${"\\u0000".repeat(10)}"}`,
  '{"a":"\\ud800"}',
] as const;
