import { compileUserRegex } from "@vetted/store/limits";
import type { Step } from "./steps.js";
import type { ParamSpec } from "./template.js";

const HAS_REFERENCE = /\$\{(params|vars|secrets|gate)\./;

/**
 * Compiles every regular expression a flow's steps carry (assert `matches`, input-gate `pattern`) with
 * the linear-time engine, so a pattern that could not run in linear time is refused when it is saved.
 * A pattern built from `${…}` references is compiled (with the same engine) when the step runs.
 * @throws RegexInvalidError (`REGEX_INVALID`) naming the first refused pattern
 */
export function assertStepPatterns(steps: readonly Step[]): void {
  for (const step of steps) {
    const pattern =
      step.type === "assert"
        ? step.matches
        : step.type === "input_gate"
          ? step.input_schema?.pattern
          : undefined;
    if (pattern !== undefined && !HAS_REFERENCE.test(pattern)) compileUserRegex(pattern);
  }
}

/**
 * Compiles every template param `pattern` with the linear-time engine.
 * @throws RegexInvalidError (`REGEX_INVALID`) naming the first refused pattern
 */
export function assertParamPatterns(specs: readonly ParamSpec[]): void {
  for (const spec of specs) {
    if (spec.pattern !== undefined) compileUserRegex(spec.pattern);
  }
}
