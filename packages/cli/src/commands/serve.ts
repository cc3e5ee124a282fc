import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, type ExitCode } from "../exit.js";

/** How to start the server: the command line and the folder to run it in. */
export interface ServerLaunch {
  cwd: string;
  args: string[];
}

/** Finds the workspace's `apps/server` (the private `@vetted/server`) above this package, if any. */
export function findWorkspaceServer(from: string): string | undefined {
  let dir = from;
  for (;;) {
    const manifest = join(dir, "apps", "server", "package.json");
    if (existsSync(join(dir, "pnpm-workspace.yaml")) && existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
      return name === "@vetted/server" ? join(dir, "apps", "server") : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The server's launch: its build (`dist/main.js`) when there is one and the CLI itself runs built, else its
 * sources through tsx with the `@vetted/source` condition (a workspace checkout). Undefined outside the
 * workspace.
 */
export function serverLaunch(from: string, preferSources: boolean): ServerLaunch | undefined {
  const serverDir = findWorkspaceServer(from);
  if (serverDir === undefined) return undefined;
  const built = join(serverDir, "dist", "main.js");
  if (existsSync(built) && !preferSources) return { cwd: serverDir, args: [built] };
  try {
    // `--import tsx`: tsx's package entry is its ESM loader.
    const tsx = createRequire(join(serverDir, "package.json")).resolve("tsx");
    return {
      cwd: serverDir,
      args: [
        "--conditions=@vetted/source",
        "--import",
        pathToFileURL(tsx).href,
        join(serverDir, "src", "main.ts"),
      ],
    };
  } catch {
    return undefined;
  }
}

interface ServeOptions {
  host?: string;
  port?: string;
}

/** `vetted serve`: runs the workspace's server in the foreground until SIGINT/SIGTERM; answers its exit code. */
async function serve(ctx: CommandContext, options: ServeOptions): Promise<ExitCode> {
  const self = fileURLToPath(import.meta.url);
  const launch = serverLaunch(dirname(self), self.endsWith(".ts"));
  if (launch === undefined) {
    throw new CliError(
      "serve needs the Vetted server (apps/server), which is not published: run it from a checkout of the Vetted repository (pnpm install), or start the server there with pnpm start",
      EXIT.usage,
      "SERVER_NOT_INSTALLED",
    );
  }
  const env = {
    ...ctx.io.env,
    ...(options.host === undefined ? {} : { HOST: options.host }),
    ...(options.port === undefined ? {} : { PORT: options.port }),
  };
  const child = spawn(process.execPath, launch.args, {
    cwd: launch.cwd,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (exitCode) => resolve(exitCode));
    });
    return code === 0 || code === null ? EXIT.ok : code === 2 ? EXIT.usage : EXIT.findings;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

/** Registers `serve`. */
export function registerServe(program: Command, ctx: CommandContext, done: (code: ExitCode) => void): void {
  program
    .command("serve")
    .description("Start the Vetted server in the foreground (needs a checkout of the Vetted workspace)")
    .option("--host <host>", "address to bind (HOST; default 127.0.0.1)")
    .option("--port <port>", "port to bind (PORT; default 8787, 0 picks a free one)")
    .action(async (options: ServeOptions) => done(await serve(ctx, options)));
}
