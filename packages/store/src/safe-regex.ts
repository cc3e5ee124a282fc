import { RE2JS } from "re2js";
import { RegexInvalidError } from "./errors.js";

/** The longest pattern a person may save. */
export const MAX_REGEX_LENGTH = 1_000;

/** A user-supplied regular expression compiled by a linear-time (RE2) engine: no input can freeze it. */
export interface UserRegex {
  readonly source: string;
  /** Whether the pattern matches anywhere in `input` (like `RegExp.prototype.test`). */
  test(input: string): boolean;
}

const FLAG_BITS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/**
 * Compiles a pattern from a user with RE2 semantics (linear-time matching). Accepted flags: `i`, `m`, `s`
 * (`u` and `g` are accepted and ignored). Throws {@link RegexInvalidError} (`REGEX_INVALID`) for a pattern
 * that is too long, malformed, or needs backtracking (backreferences, lookarounds).
 */
export function compileUserRegex(pattern: string, flags = ""): UserRegex {
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw new RegexInvalidError(pattern, `it is longer than ${MAX_REGEX_LENGTH} characters`);
  }
  let bits = 0;
  for (const flag of flags) {
    if (flag === "u" || flag === "g") continue;
    const bit = FLAG_BITS[flag];
    if (bit === undefined) throw new RegexInvalidError(pattern, `the flag "${flag}" is not supported`);
    bits |= bit;
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, bits);
  } catch (err) {
    throw new RegexInvalidError(pattern, err instanceof Error ? err.message : String(err));
  }
  return { source: pattern, test: (input) => compiled.test(input) };
}

/** The reason a pattern would be refused by {@link compileUserRegex}, or `null` when it is accepted. */
export function userRegexProblem(pattern: string, flags = ""): string | null {
  try {
    compileUserRegex(pattern, flags);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
