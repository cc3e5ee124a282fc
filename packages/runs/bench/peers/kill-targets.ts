/**
 * The engines of bench:peers part (e), kill -9 half-way: each one's n workflows of 5 steps that each GET
 * the bench's counting sink (`<sink>/<i>/<step>`), the process(es) SIGKILLed, and the fresh ones started
 * on the same data. Ours: a server process (`bench/recovery-child.ts`) over the SQLite file, which holds the
 * engine and its workers. DBOS: the app process (DBOS Transact is a library in it; PostgreSQL, its
 * database, stays up as our file does). Restate: both `restate-server` (the engine: its log and state) and
 * the service endpoint process (the workers), the two together being what our one process is.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { openDatabase } from "@vetted/store/database";
import { buildsAreFresh } from "../../../../tools/fresh-dist.js";
import { createRunsEngine, migrate } from "../../src/index.js";
import {
  freePort,
  launchRestateServer,
  type Peer,
  restateExe,
  restatePorts,
  stopChild,
} from "./peer-processes.js";

export const KILL_STEPS = ["s1", "s2", "s3", "s4", "s5"];

const BUILDS = [
  { dir: "packages/store", entry: "dist/database.js" },
  { dir: "packages/runs", entry: "dist/index.js" },
];

/** Whether our server process can start from dist/: built now when it is older than the sources. */
function builtChild(): boolean {
  if (buildsAreFresh(BUILDS)) return true;
  console.log("  (building @vetted/store and @vetted/runs so our server starts from dist/, as deployed)");
  const done = spawnSync("pnpm", ["--filter", "@vetted/runs...", "build"], { stdio: "ignore" });
  return done.status === 0 && buildsAreFresh(BUILDS);
}
const GIVE_UP_MS = 120_000;
const here = dirname(fileURLToPath(import.meta.url));

/** One engine in part (e). */
export interface KillTarget {
  /** Starts the first process(es) over the n workflows; resolves once all n are started. */
  start(): Promise<void>;
  /** SIGKILLs the process(es) and waits for their exit. */
  kill(): Promise<void>;
  /**
   * Starts fresh process(es) on the same data, calls `ready` once they are up (ours: its worker started;
   * DBOS: launched; Restate: the server healthy and the endpoint listening), and resolves with how many
   * workflows succeeded, once all have (or after 120 s).
   */
  restart(ready: () => void): Promise<number>;
  /** Stops what is left and removes its data. */
  close(): Promise<void>;
}

/** Awaits a line of `child`'s stdout starting with a prefix (created at spawn, so no line is missed). */
function lineWaiter(child: ChildProcess): (prefix: string) => Promise<string> {
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const iterator = createInterface({ input: stdout })[Symbol.asyncIterator]();
  return async (prefix) => {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) {
        if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
        const how = child.signalCode ?? `exit ${child.exitCode}`;
        throw new Error(`${child.spawnargs.slice(1, 3).join(" ")} ended (${how}) before saying ${prefix}`);
      }
      if (next.value.startsWith(prefix)) return next.value;
    }
  };
}

async function killChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** Ours: the runs created in a SQLite file first, then a server process (concurrency as in parts a–d). */
export async function oursTarget(n: number, sink: string, concurrency: number): Promise<KillTarget> {
  const dir = mkdtempSync(join(tmpdir(), "vetted-bench-peers-kill-"));
  const file = join(dir, "bench.db");
  const key = randomBytes(32);
  const { db, client } = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
  await migrate(db);
  const engine = createRunsEngine({ db, secretsKey: key }); // never started: creates and reads only
  const flow = await engine.createFlow({
    name: "five requests",
    steps: KILL_STEPS.map((id) => ({
      id,
      type: "http" as const,
      method: "GET" as const,
      url: `\${params.sink}/\${params.n}/${id}`,
      expect: { status: [200] },
    })),
  });
  for (let i = 0; i < n; i++) await engine.createRun({ flow_id: flow.id, params: { sink, n: String(i) } });
  let child: ChildProcess | undefined;
  // Started from the built packages with node alone when their dist/ is current (else from the sources).
  const built = builtChild();
  const server = async () => {
    const argv = built
      ? [join(here, "..", "recovery-child.mjs"), file, key.toString("hex")]
      : [
          "--conditions=@vetted/source",
          "--import",
          "tsx",
          join(here, "..", "recovery-child.ts"),
          file,
          key.toString("hex"),
        ];
    child = spawn(process.execPath, [...argv, String(concurrency)], {
      cwd: join(here, "..", ".."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    await lineWaiter(child)("ready");
  };
  return {
    start: server,
    kill: () => killChild(child),
    restart: async (ready) => {
      await server();
      ready();
      const giveUpAt = performance.now() + GIVE_UP_MS;
      let succeeded = 0;
      while (succeeded < n && performance.now() < giveUpAt) {
        succeeded = (await engine.countRunsByStatus()).success;
        if (succeeded < n) await new Promise((r) => setTimeout(r, 10));
      }
      return succeeded;
    },
    close: async () => {
      await killChild(child);
      await engine.stop();
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A peer's side (dbos.mjs, restate.mjs) as a long-lived child: `kill-start` or `kill-recover`. */
function peerChild(peer: Peer, part: string, n: number, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [peer.script, part, String(n), ...args], {
    cwd: dirname(peer.script),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return { child, line: lineWaiter(child) };
}

/** DBOS: the app process on the peer's PostgreSQL (its workflows' ids carry `tag`). */
export function dbosTarget(peer: Peer, n: number, sink: string, tag: string): KillTarget {
  const env = { BENCH_SINK: sink, BENCH_TAG: tag };
  let child: ChildProcess | undefined;
  return {
    start: async () => {
      const first = peerChild(peer, "kill-start", n, peer.args, env);
      child = first.child;
      await first.line("ready");
    },
    kill: () => killChild(child),
    restart: async (ready) => {
      const second = peerChild(peer, "kill-recover", n, peer.args, env);
      child = second.child;
      await second.line("ready");
      ready();
      return Number((await second.line("done ")).slice(5));
    },
    close: async () => {
      if (child !== undefined) await stopChild(child);
    },
  };
}

/** Restate: a server of its own (a fresh folder, restarted on it) and the service endpoint. */
export async function restateTarget(peer: Peer, n: number, sink: string, tag: string): Promise<KillTarget> {
  const exe = restateExe(dirname(peer.script));
  const dir = mkdtempSync(join(tmpdir(), "vetted-bench-restate-kill-"));
  const ports = await restatePorts();
  const endpoint = await freePort();
  const args = [`http://127.0.0.1:${ports.ingress}`, `http://127.0.0.1:${ports.admin}`, String(endpoint)];
  const env = { BENCH_SINK: sink, BENCH_TAG: tag };
  let server: ChildProcess | undefined;
  let service: ChildProcess | undefined;
  const launch = async () => {
    const launched = await launchRestateServer(exe, dir, ports);
    if (!launched.ok) throw new Error(launched.why);
    server = launched.child;
  };
  return {
    start: async () => {
      await launch();
      const first = peerChild(peer, "kill-start", n, args, env);
      service = first.child;
      await first.line("ready");
    },
    kill: async () => {
      await Promise.all([killChild(server), killChild(service)]);
    },
    restart: async (ready) => {
      const second = peerChild(peer, "kill-recover", n, args, env);
      service = second.child;
      await Promise.all([launch(), second.line("ready")]);
      ready();
      return Number((await second.line("done ")).slice(5));
    },
    close: async () => {
      if (service !== undefined) await stopChild(service);
      if (server !== undefined) await stopChild(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
