/*
 * The typed template params — `enum` (`enum_values`), `regex` (`pattern`, RE2) and `email` — checked when a
 * template is saved (the declaration) and when a run starts (the value). Pure.
 */
import { compileUserRegex } from "@vetted/store/limits";
import { z } from "zod";

type ParamType = "string" | "number" | "boolean" | "secret" | "enum" | "regex" | "email";

/** The declaration fields the typed params need. */
interface TypedSpec {
  type: ParamType;
  pattern?: string | undefined;
  enum_values?: string[] | undefined;
}

const EMAIL = z.email();

/** The JavaScript type a value of this param type has: `enum`, `regex`, `email` and `secret` are strings. */
export function valueTypeOf(type: ParamType): "string" | "number" | "boolean" {
  return type === "number" || type === "boolean" ? type : "string";
}

/** Refuses a declaration its type cannot use: `enum` without `enum_values`, `regex` without `pattern`. */
export function checkParamSpec(spec: TypedSpec, ctx: z.RefinementCtx): void {
  if (spec.type === "enum" && spec.enum_values === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["enum_values"],
      message: "a param of type enum needs enum_values",
    });
  }
  if (spec.type !== "enum" && spec.enum_values !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["enum_values"],
      message: "enum_values is for params of type enum",
    });
  }
  if (spec.type === "regex" && spec.pattern === undefined) {
    ctx.addIssue({ code: "custom", path: ["pattern"], message: "a param of type regex needs a pattern" });
  }
}

/**
 * The reason a value (already of the right JavaScript type) breaks its typed param, or undefined: not one
 * of `enum_values`, not matching a `regex` param's pattern, not an email address.
 */
export function checkTypedValue(spec: TypedSpec, value: unknown): string | undefined {
  if (spec.type === "enum" && !(spec.enum_values ?? []).includes(String(value))) {
    return `must be one of: ${(spec.enum_values ?? []).join(", ")}`;
  }
  if (spec.type === "regex" && spec.pattern !== undefined) {
    if (!compileUserRegex(spec.pattern).test(String(value))) return `must match the pattern ${spec.pattern}`;
  }
  if (spec.type === "email" && !EMAIL.safeParse(value).success) {
    return "must be an email address (name@example.com)";
  }
  return undefined;
}
