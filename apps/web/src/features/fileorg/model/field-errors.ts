/**
 * Validation messages next to the fields: the server answers a refused body with
 * `details.issues: [{ pointer: "/path", message }]` (VALIDATION_FAILED, PREFERENCE_INVALID) and the
 * runtime validation with `problems: [{ pointer, message }]`. This maps them to field names.
 */

/** `{ "/workers": "…" }` → `{ workers: "…" }` (the first message per top-level field; `""` for the body). */
export function fieldErrors(
  issues: ReadonlyArray<{ pointer: string; message: string }>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { pointer, message } of issues) {
    const field = (pointer.split("/")[1] ?? "").replaceAll("~1", "/").replaceAll("~0", "~");
    if (out[field] === undefined) out[field] = message;
  }
  return out;
}

/** The issues an error's details carry, or none. */
export function issuesOf(details: unknown): Array<{ pointer: string; message: string }> {
  const issues = (details as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.filter(
    (i): i is { pointer: string; message: string } =>
      typeof i === "object" && i !== null && typeof i.pointer === "string" && typeof i.message === "string",
  );
}
