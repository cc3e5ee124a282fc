import type { OpenAPIHonoOptions } from "@hono/zod-openapi";
import type { z } from "zod";
import type { AppEnv } from "./deps.js";
import { ServerError } from "./errors.js";

/** One schema failure, as answered in `details.issues`. */
export interface ValidationIssue {
  /** Where the failure is: `body`, `query`, `param` or `header`. */
  in: string;
  /** JSON Pointer into that input, e.g. `/steps/2/url`. */
  pointer: string;
  code: string;
  message: string;
}

function toPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

const TARGET_NAMES: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
};

/** Turns zod issues into the `details` of a VALIDATION_FAILED answer. */
export function validationError(target: string, error: z.core.$ZodError): ServerError {
  const where = TARGET_NAMES[target] ?? target;
  const issues: ValidationIssue[] = error.issues.map((issue) => ({
    in: where,
    pointer: toPointer(issue.path),
    code: issue.code,
    message: issue.message,
  }));
  const first = issues[0];
  const summary =
    first === undefined
      ? `The request ${where} is invalid.`
      : `The request ${where} is invalid at ${first.pointer || "/"}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}.`;
  // A bad cursor is its own, documented answer: the one cursor contract of every list.
  if (where === "query" && issues.some((issue) => issue.pointer === "/cursor")) {
    return new ServerError(
      "CURSOR_INVALID",
      "The cursor is not one this server made; pass next_cursor of the previous page, or no cursor to start.",
      { issues },
    );
  }
  return new ServerError("VALIDATION_FAILED", summary, { issues });
}

/** The default hook of every validated route: a schema failure becomes a 400 VALIDATION_FAILED envelope. */
export const validationHook: NonNullable<OpenAPIHonoOptions<AppEnv>["defaultHook"]> = (result) => {
  if (!result.success) throw validationError(result.target, result.error);
};
