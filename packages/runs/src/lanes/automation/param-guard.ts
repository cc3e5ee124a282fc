import { realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { type CommandSpec, interpolateArgv, optionLikeArgs } from "../../domain/automation.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { isInsideRoot, realRoots } from "../../kernel/roots.js";
import { PathOutsideRootError } from "../reconstruction/reconstruction-errors.js";
import { ParamLooksLikeOptionError } from "./automation-errors.js";

/*
 * What an operator command's params may become before anything runs: path params (`path_params`, and the
 * `cwd` a param completes) confined to the allowed roots with symlinks resolved, and no param turned into
 * an option of the program (`--help` where a positional value is expected).
 */

/** What an attempt spawns: the program's argv and its working directory. */
export interface PreparedArgv {
  argv: string[];
  cwd: string | undefined;
}

/** The real path of `path`, or of its deepest existing ancestor with the rest appended (for a new file). */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPathOf(parent), basename(path));
  }
}

/**
 * The real path of a path a request gave, confined to `roots`: absolute, without a `..` segment, and inside
 * a root once symlinks are resolved (so a link inside a root cannot lead out of it). The path need not
 * exist. @throws PATH_OUTSIDE_ROOT
 */
export function confinePath(path: string, roots: readonly string[]): string {
  if (!isAbsolute(path)) throw new PathOutsideRootError(path, "the path must be absolute");
  if (path.split(/[\\/]+/).includes("..")) throw new PathOutsideRootError(path, "it contains a .. segment");
  const real = realPathOf(resolve(path));
  if (!realRoots(roots).some((root) => isInsideRoot(root, real))) {
    throw new PathOutsideRootError(
      path,
      real === resolve(path)
        ? "it is outside the allowed roots"
        : "a symbolic link leads outside the allowed roots",
    );
  }
  return real;
}

function paramsInvalid(message: string, param: string): InvalidInputError {
  return new InvalidInputError("PARAMS_INVALID", message, { issues: [{ path: [param], message }] });
}

/** The params with each path param replaced by its confined real path. @throws PATH_OUTSIDE_ROOT, PARAMS_INVALID */
function confinePathParams(
  spec: CommandSpec,
  params: Record<string, unknown>,
  roots: readonly string[],
): Record<string, unknown> {
  const out = { ...params };
  for (const name of spec.path_params) {
    const value = params[name];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.length === 0) {
      throw paramsInvalid(`params.${name} is a path: a non-empty string`, name);
    }
    out[name] = confinePath(value, roots);
  }
  return out;
}

/** The working directory, params filled in, confined and an existing directory. */
function confineCwd(spec: CommandSpec, params: Record<string, unknown>, roots: readonly string[]) {
  if (spec.cwd === undefined) return undefined;
  const filled = interpolateArgv([spec.cwd], params);
  if (!filled.ok) throw paramsInvalid(`cwd needs params ${filled.missing.join(", ")}`, "cwd");
  const [written = ""] = filled.argv;
  if (written === spec.cwd) return spec.cwd; // confined when the commands file was read
  const real = confinePath(written, roots);
  let directory = false;
  try {
    directory = statSync(real).isDirectory();
  } catch {
    directory = false;
  }
  if (!directory) throw paramsInvalid(`cwd ${written} is not an existing directory`, "cwd");
  return real;
}

/**
 * The argv and working directory of an attempt, params filled in: path params confined (their real path
 * is what the program gets), the cwd confined, and no param starting an element with `-` unless the
 * element is written with a leading `-` or follows a literal `--`.
 * @throws PATH_OUTSIDE_ROOT, PARAMS_INVALID, PARAM_LOOKS_LIKE_OPTION
 */
export function prepareArgv(
  spec: CommandSpec,
  params: Record<string, unknown>,
  roots: readonly string[],
): PreparedArgv {
  const confined = confinePathParams(spec, params, roots);
  const filled = interpolateArgv(spec.argv, confined);
  if (!filled.ok) {
    const [first = "params"] = filled.missing;
    throw paramsInvalid(`params missing for argv: ${filled.missing.join(", ")}`, first);
  }
  const [injected] = optionLikeArgs(spec.argv, filled.argv);
  if (injected !== undefined) {
    throw new ParamLooksLikeOptionError(spec.command_id, injected.params, injected.index);
  }
  return { argv: filled.argv, cwd: confineCwd(spec, confined, roots) };
}
