import { assertJsonDepth } from "@vetted/store";
import type { RuntimeSettingsInput } from "../domain/preferences.js";
import type { PathGuard } from "./path-guard.js";

/**
 * Refuses a preference nested deeper than the JSON depth limit (NESTING_TOO_DEEP, before any recursive
 * code runs on it); answers it unchanged otherwise.
 */
export function boundedDepth(input: unknown, family: string): unknown {
  assertJsonDepth(input, `The ${family} preference`);
  return input;
}

/**
 * Checks that every path an item stores (a watch source's folder) lies inside the allowed roots once
 * symlinks are resolved; throws PATH_OUTSIDE_ROOT otherwise. A folder that does not exist yet is resolved
 * through its nearest existing ancestor.
 */
export async function checkStoredPaths(guard: PathGuard, item: object): Promise<void> {
  if ("path" in item && typeof item.path === "string") await guard.resolvePossiblyMissing(item.path);
}

/** Checks the paths of runtime settings (allowed roots, default output root): each inside the engine's roots. */
export async function checkStoredRuntime(
  guard: PathGuard,
  input: Pick<RuntimeSettingsInput, "allowed_roots" | "default_output_root">,
): Promise<void> {
  for (const root of input.allowed_roots ?? []) await guard.resolvePossiblyMissing(root);
  if (typeof input.default_output_root === "string")
    await guard.resolvePossiblyMissing(input.default_output_root);
}
