import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadJournalKey } from "@vetted/fileorg";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { messageOf } from "../context.js";
import { EXIT, type ExitCode } from "../exit.js";
import { say } from "../io.js";
import type { CliSettings } from "../settings.js";

/** One check's outcome: `ok`, `warn` (reported, not a failure) or `fail`. */
export interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
}

/** The lowest Node.js the CLI runs on (`engines.node`): `crypto.hash` of @vetted/fileorg, @clack/prompts. */
const MIN_NODE: readonly [number, number] = [20, 12];

/** Whether `version` (`20.11.1`) is at least `min` (major, minor). */
export function nodeAtLeast(version: string, min: readonly [number, number]): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > min[0] || (major === min[0] && minor >= min[1]);
}

function checkNode(): Check {
  return nodeAtLeast(process.versions.node, MIN_NODE)
    ? { name: "node", status: "ok", detail: `Node.js ${process.versions.node}` }
    : {
        name: "node",
        status: "fail",
        detail: `Node.js ${process.versions.node}; ${MIN_NODE.join(".")} or newer is needed`,
      };
}

function checkDataDir(settings: CliSettings): Check {
  try {
    mkdirSync(settings.dataDir, { recursive: true });
    accessSync(settings.dataDir, constants.W_OK);
    return { name: "data dir", status: "ok", detail: `${settings.dataDir} is writable` };
  } catch (err) {
    return {
      name: "data dir",
      status: "fail",
      detail: `${settings.dataDir}: ${messageOf(err)} (set VETTED_DATA_DIR)`,
    };
  }
}

function checkRoots(settings: CliSettings): Check {
  const missing = settings.allowedRoots.filter((root) => {
    try {
      return !statSync(root).isDirectory();
    } catch {
      return true;
    }
  });
  const from = settings.allowedRootsFromEnv ? "VETTED_ALLOWED_ROOTS" : "default: home and temp";
  if (missing.length === 0)
    return { name: "allowed roots", status: "ok", detail: `${settings.allowedRoots.join(", ")} (${from})` };
  return {
    name: "allowed roots",
    status: missing.length === settings.allowedRoots.length ? "fail" : "warn",
    detail: `missing: ${missing.join(", ")} (${from}); nothing under a missing root can be organized`,
  };
}

function checkJournalKey(settings: CliSettings): Check {
  try {
    loadJournalKey({ dataDir: settings.dataDir, env: { VETTED_JOURNAL_KEY: settings.journalKey } });
    const where =
      settings.journalKey === undefined
        ? join(settings.dataDir, "fileorg-journal.key")
        : "VETTED_JOURNAL_KEY";
    return { name: "journal key", status: "ok", detail: `from ${where}` };
  } catch (err) {
    return { name: "journal key", status: "fail", detail: messageOf(err) };
  }
}

/** Chromium is needed only by the browser lanes of runs: its absence is reported, never a failure. */
function checkChromium(ctx: CommandContext): Check {
  const path = ctx.io.env.VETTED_CHROMIUM_PATH || "/usr/bin/chromium";
  if (existsSync(path)) return { name: "chromium", status: "ok", detail: path };
  return {
    name: "chromium",
    status: "warn",
    detail: `not found at ${path} (only the browser lanes need it; set VETTED_CHROMIUM_PATH)`,
  };
}

async function checkDatabase(ctx: CommandContext): Promise<Check> {
  try {
    return await ctx.withBackend(async (backend, settings) => {
      await backend.listJobs({ limit: 1 });
      const where = settings.server ?? settings.databaseUrl;
      return { name: "database", status: "ok", detail: `${where} opens; migrations applied` } satisfies Check;
    });
  } catch (err) {
    return { name: "database", status: "fail", detail: messageOf(err) };
  }
}

/** `vetted doctor`: checks the environment; exit 1 when a check fails. */
async function doctor(ctx: CommandContext, json: boolean): Promise<ExitCode> {
  const settings = ctx.settings();
  const checks: Check[] = [checkNode()];
  if (settings.server === undefined) checks.push(checkDataDir(settings));
  checks.push(await checkDatabase(ctx));
  if (settings.server === undefined) checks.push(checkRoots(settings), checkJournalKey(settings));
  checks.push(checkChromium(ctx));
  const failed = checks.some((check) => check.status === "fail");
  if (json) {
    say(ctx.io, JSON.stringify({ ok: !failed, checks }, null, 2));
  } else {
    const mark = { ok: ctx.c.green("ok  "), warn: ctx.c.yellow("warn"), fail: ctx.c.red("FAIL") };
    for (const check of checks) say(ctx.io, `${mark[check.status]} ${check.name.padEnd(14)} ${check.detail}`);
  }
  return failed ? EXIT.findings : EXIT.ok;
}

/** Registers `doctor`. */
export function registerDoctor(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("doctor")
    .description(
      "Check Node.js, the data dir, the database and migrations, allowed roots, the journal key, Chromium",
    )
    .option("--json", "print {ok, checks} as JSON")
    .action(async (options: { json?: boolean }) => done(await doctor(ctx, options.json === true)));
}
