import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { runTransaction } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import {
  checkRuntimeSettings,
  DEFAULT_RUNTIME_SETTINGS,
  maskSecret,
  mergeRuntimeSettings,
  type RuntimeProblem,
  type RuntimeSettings,
  RuntimeSettingsInput,
  type RuntimeSettingsView,
} from "../../domain/preferences.js";
import { findStrategyPack, STRATEGY_PACKS, type StrategyPack } from "../../domain/strategy-packs.js";
import { PreferenceInvalidError } from "../../review-errors.js";
import { preferences, preferenceVersions } from "../../store/review-schema.js";
import type { Queryable } from "../db.js";
import { effectiveRootsOf } from "../effective-roots.js";
import type { PathGuard } from "../path-guard.js";
import { boundedDepth, checkStoredRuntime } from "../preference-guards.js";
import {
  iso,
  type PreferencesResources,
  type RuntimeValidation,
  type SaveOptions,
  type StrategyPackView,
  toIssues,
} from "./resources.js";

function maskRuntime(s: RuntimeSettings): Record<string, unknown> {
  const ai = s.ai_classifier;
  return {
    ...s,
    ai_classifier:
      ai === null ? null : { ...ai, api_key: ai.api_key === null ? null : maskSecret(ai.api_key) },
  };
}

/** The stored runtime settings over the defaults, their version and last save time. */
export async function readRuntime(db: Queryable): Promise<{
  settings: RuntimeSettings;
  version: number;
  updatedAt: number | null;
  createdAt: number | null;
}> {
  const [row] = await db
    .select()
    .from(preferences)
    .where(and(eq(preferences.family, "runtime"), eq(preferences.id, "runtime")));
  if (row === undefined) {
    return { settings: DEFAULT_RUNTIME_SETTINGS, version: 0, updatedAt: null, createdAt: null };
  }
  const stored = row.data as Omit<Partial<RuntimeSettings>, "limits"> & { limits?: Record<string, number> };
  // Settings saved before `max_file_bytes` was named so kept it as `max_file_size_bytes`.
  const { max_file_size_bytes: legacy, ...limits } = stored.limits ?? {};
  return {
    settings: {
      ...DEFAULT_RUNTIME_SETTINGS,
      ...stored,
      limits: {
        ...DEFAULT_RUNTIME_SETTINGS.limits,
        ...(legacy === undefined ? {} : { max_file_bytes: legacy }),
        ...limits,
      },
    },
    version: row.version,
    updatedAt: row.updatedAt,
    createdAt: row.createdAt,
  };
}

/** The runtime settings as answered: the API key masked. */
export function runtimeView(
  settings: RuntimeSettings,
  version: number,
  updatedAt: number | null,
  effectiveRoots: readonly string[],
): RuntimeSettingsView {
  const ai = settings.ai_classifier;
  return {
    ...settings,
    effective_roots: [...effectiveRoots],
    ai_classifier:
      ai === null
        ? null
        : {
            endpoint_url: ai.endpoint_url,
            model: ai.model,
            api_key: ai.api_key === null ? null : maskSecret(ai.api_key),
            api_key_set: ai.api_key !== null,
          },
    version,
    updated_at: updatedAt === null ? null : iso(updatedAt),
  };
}

async function checkDir(path: string, pointer: string, mayBeMissing: boolean): Promise<RuntimeProblem[]> {
  const problems: RuntimeProblem[] = [];
  try {
    const st = await stat(path);
    if (!st.isDirectory())
      return [{ pointer, code: "NOT_A_DIRECTORY", message: `${path} is not a directory` }];
    await access(path, constants.W_OK).catch(() =>
      problems.push({ pointer, code: "NOT_WRITABLE", message: `${path} is not writable by the server` }),
    );
  } catch {
    if (mayBeMissing) {
      // A missing output root is fine if it can be created.
      await access(dirname(path), constants.W_OK).catch(() =>
        problems.push({
          pointer,
          code: "NOT_FOUND",
          message: `${path} does not exist and cannot be created`,
        }),
      );
    } else {
      problems.push({ pointer, code: "NOT_FOUND", message: `${path} does not exist` });
    }
  }
  return problems;
}

/** A root of the settings outside the environment's roots would widen them: refused. */
async function checkWithinEnvironment(guard: PathGuard, root: string, pointer: string) {
  try {
    await guard.resolvePossiblyMissing(root);
    return [];
  } catch {
    return [
      {
        pointer,
        code: "OUTSIDE_ENVIRONMENT_ROOTS",
        message: `${root} is outside the server's allowed roots (${guard.roots.join(", ")}); allowed_roots can only narrow them`,
      },
    ];
  }
}

async function checkOnDisk(s: RuntimeSettings, guard: PathGuard): Promise<RuntimeProblem[]> {
  const checks = s.allowed_roots.flatMap((root, i) => [
    checkDir(root, `/allowed_roots/${i}`, false),
    checkWithinEnvironment(guard, root, `/allowed_roots/${i}`),
  ]);
  if (s.default_output_root !== null)
    checks.push(checkDir(s.default_output_root, "/default_output_root", true));
  const problems = (await Promise.all(checks)).flat();
  return problems.sort((a, b) => a.pointer.localeCompare(b.pointer));
}

/**
 * Merges the given fields onto the stored runtime settings and saves them (PREFERENCE_INVALID on a bad
 * field). An `api_key` left out, or sent back exactly as masked, keeps the stored key.
 */
export async function saveRuntime(
  res: PreferencesResources,
  input: unknown,
  opts: SaveOptions = {},
): Promise<RuntimeSettingsView> {
  const parsed = RuntimeSettingsInput.safeParse(boundedDepth(input, "runtime"));
  if (!parsed.success) throw new PreferenceInvalidError("runtime", toIssues(parsed.error));
  await checkStoredRuntime(res.guard, parsed.data);
  const now = res.clock();
  const { settings, version } = await runTransaction(res.db, async (tx) => {
    const current = await readRuntime(tx);
    const next = mergeRuntimeSettings(current.settings, parsed.data);
    const v = current.version + 1;
    const data = next as unknown as Record<string, unknown>;
    await tx
      .insert(preferences)
      .values({
        family: "runtime",
        id: "runtime",
        name: "runtime",
        version: v,
        data,
        createdAt: current.createdAt ?? now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [preferences.family, preferences.id],
        set: { version: v, data, updatedAt: now },
      });
    await tx.insert(preferenceVersions).values({
      family: "runtime",
      id: "runtime",
      version: v,
      data: maskRuntime(next),
      savedAt: now,
      actor: opts.actor ?? "local",
    });
    return { settings: next, version: v };
  });
  return runtimeView(settings, version, now, await effectiveRootsOf(res.guard, settings.allowed_roots));
}

/**
 * Checks proposed runtime settings without saving: the shape of every field, limits, the template,
 * and on disk that roots exist and are writable. Each problem is answered on its own.
 */
export async function validateRuntime(res: PreferencesResources, input: unknown): Promise<RuntimeValidation> {
  // Each field is parsed on its own, so one bad field hides no other problem: the fields that parse are
  // still checked against each other and on disk.
  const { valid, problems } = parseFieldByField(input);
  const merged = mergeRuntimeSettings((await readRuntime(res.db)).settings, valid);
  problems.push(...checkRuntimeSettings(merged), ...(await checkOnDisk(merged, res.guard)));
  return { ok: problems.length === 0, problems };
}

/** Parses runtime settings field by field: the fields that parse, and one INVALID problem per issue. */
function parseFieldByField(input: unknown): { valid: RuntimeSettingsInput; problems: RuntimeProblem[] } {
  const problems: RuntimeProblem[] = [];
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return { valid: {}, problems: [{ pointer: "", code: "INVALID", message: "settings must be an object" }] };
  }
  const shape = RuntimeSettingsInput.shape;
  const valid: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const schema = (shape as Record<string, z.ZodType>)[key];
    if (schema === undefined) {
      problems.push({
        pointer: `/${key}`,
        code: "INVALID",
        message: `unknown setting; use one of ${Object.keys(shape).join(", ")}`,
      });
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) {
      valid[key] = parsed.data;
      continue;
    }
    for (const issue of toIssues(parsed.error))
      problems.push({ pointer: `/${key}${issue.pointer}`, code: "INVALID", message: issue.message });
  }
  return { valid: valid as RuntimeSettingsInput, problems };
}

/** The built-in strategy packs, the active one marked. */
export async function listStrategyPacks(res: PreferencesResources): Promise<{ items: StrategyPackView[] }> {
  const active = (await readRuntime(res.db)).settings.active_strategy_pack;
  return { items: STRATEGY_PACKS.map((p) => ({ ...p, active: p.id === active })) };
}

/** The active strategy pack (the default one if the stored id is no longer built in). */
export async function activeStrategyPack(res: PreferencesResources): Promise<StrategyPack> {
  const active = (await readRuntime(res.db)).settings.active_strategy_pack;
  return findStrategyPack(active) ?? (STRATEGY_PACKS[0] as StrategyPack);
}
