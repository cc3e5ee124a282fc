import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { argvReferences, CommandSpec } from "../../domain/automation.js";
import { isInsideRoot } from "../../kernel/roots.js";
import { CommandsFileError } from "./automation-errors.js";
import { compileParamsSchema } from "./commands.js";

/** The real path of an existing directory, or why it cannot be used. */
function realDirectory(path: string): string | { problem: string } {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : { problem: `${path} is not a directory` };
  } catch {
    return { problem: `${path} does not exist` };
  }
}

/** Checks one parsed entry beyond its shape: cwd confinement, the params schema, argv's references. */
function checkEntry(
  spec: CommandSpec,
  allowedRoots: readonly string[],
): { spec: CommandSpec } | { problem: string } {
  let cwd: string | undefined;
  const cwdParams = spec.cwd === undefined ? [] : argvReferences([spec.cwd]);
  const cwdPrefix = spec.cwd?.split("${")[0] ?? "";
  if (cwdParams.length > 0 && cwdPrefix !== "" && !isAbsolute(cwdPrefix)) {
    return { problem: `cwd ${spec.cwd} must start with an absolute path (or a param) before its params` };
  }
  if (spec.cwd !== undefined && cwdParams.length === 0) {
    if (!isAbsolute(spec.cwd)) return { problem: `cwd ${spec.cwd} must be an absolute path` };
    const real = realDirectory(spec.cwd);
    if (typeof real !== "string") return { problem: `cwd: ${real.problem}` };
    const roots = allowedRoots
      .map((root) => realDirectory(root))
      .filter((r): r is string => typeof r === "string");
    if (!roots.some((root) => isInsideRoot(root, real))) {
      return {
        problem: `cwd ${spec.cwd} lies outside the allowed roots (VETTED_ALLOWED_ROOTS: ${allowedRoots.join(", ")})`,
      };
    }
    cwd = real;
  }
  const schema = spec.params_schema ?? {};
  try {
    compileParamsSchema(schema);
  } catch (err) {
    return { problem: `params_schema: ${err instanceof Error ? err.message : String(err)}` };
  }
  const properties = schema.properties;
  if (typeof properties === "object" && properties !== null) {
    const named = [...argvReferences(spec.argv), ...cwdParams, ...spec.path_params];
    const unknown = [...new Set(named)].filter((name) => !(name in properties));
    if (unknown.length > 0)
      return {
        problem: `argv, cwd or path_params refer to params not in params_schema: ${unknown.join(", ")}`,
      };
  }
  return { spec: cwd === undefined ? spec : { ...spec, cwd } };
}

/** Parses the commands file's text. @throws COMMANDS_FILE_INVALID naming the offending entry */
export function parseCommandsFile(
  text: string,
  allowedRoots: readonly string[],
  reservedIds: readonly string[] = [],
): CommandSpec[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CommandsFileError(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(value)) throw new CommandsFileError("the file must hold a JSON array of commands");
  const seen = new Set<string>(reservedIds);
  return value.map((entry: unknown, index) => {
    const id =
      typeof entry === "object" && entry !== null && "command_id" in entry
        ? JSON.stringify(entry.command_id)
        : "?";
    const fail = (problem: string): never => {
      throw new CommandsFileError(`entry ${index} (command_id ${id}): ${problem}`, { index, command_id: id });
    };
    const parsed = CommandSpec.safeParse(entry);
    if (!parsed.success) {
      return fail(parsed.error.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join("; "));
    }
    if (seen.has(parsed.data.command_id))
      return fail("command_id is already taken (a built-in or an earlier entry)");
    seen.add(parsed.data.command_id);
    const checked = checkEntry(parsed.data, allowedRoots);
    return "problem" in checked ? fail(checked.problem) : checked.spec;
  });
}

/** Reads and parses the commands file at `path`. @throws COMMANDS_FILE_INVALID naming the file and entry */
export function loadCommandsFile(
  path: string,
  allowedRoots: readonly string[],
  reservedIds: readonly string[] = [],
): CommandSpec[] {
  let text: string;
  try {
    text = readFileSync(resolve(path), "utf8");
  } catch (err) {
    throw new CommandsFileError(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return parseCommandsFile(text, allowedRoots, reservedIds);
  } catch (err) {
    if (err instanceof CommandsFileError) throw new CommandsFileError(`${path}: ${err.message}`, err.details);
    throw err;
  }
}
