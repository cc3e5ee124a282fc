/**
 * The peers of bench:peers as processes: their npm install (outside the pnpm workspace), a throwaway
 * PostgreSQL cluster for DBOS Transact, a Restate server, and each peer's workload run as a child `node`
 * process from the install folder (so it imports the peer's SDK from there).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The peers' versions (the ones the README's figures were measured with). */
const PACKAGES = [
  "@dbos-inc/dbos-sdk@5.3.0",
  "@restatedev/restate-sdk@1.17.2",
  "@restatedev/restate-server@1.7.12",
];

const here = dirname(fileURLToPath(import.meta.url));

export interface Peer {
  name: string;
  kind: "dbos" | "restate";
  /** The script (copied into the install folder) and the arguments after `<part> <n>`. */
  script: string;
  args: string[];
  stop(): Promise<void>;
}

export type Result<T> = ({ ok: true } & T) | { ok: false; why: string };

/** Installs the peers with npm into the cache folder unless they are there already. */
export function installPeers(): Result<{ dir: string }> {
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
  const dir = join(cache, "vetted-bench-peers");
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "package.json"))) {
    writeFileSync(
      join(dir, "package.json"),
      '{ "name": "vetted-bench-peers", "private": true, "type": "module" }\n',
    );
  }
  const have = ["@dbos-inc/dbos-sdk", "@restatedev/restate-sdk", "@restatedev/restate-server"].every((p) =>
    existsSync(join(dir, "node_modules", p, "package.json")),
  );
  if (!have) {
    console.log(`installing ${PACKAGES.join(", ")} into ${dir} (npm)…`);
    const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund", ...PACKAGES], {
      cwd: dir,
      stdio: "inherit",
    });
    if (npm.status !== 0) return { ok: false, why: `npm install failed (exit ${npm.status ?? "signal"})` };
  }
  for (const script of ["dbos.mjs", "restate.mjs"]) copyFileSync(join(here, script), join(dir, script));
  return { ok: true, dir };
}

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL's server programs (Debian keeps them under /usr/lib/postgresql/<version>/bin). */
function pgBin(): string | undefined {
  const config = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const fromConfig = config.status === 0 ? config.stdout.trim() : undefined;
  const candidates = [
    fromConfig,
    "/usr/lib/postgresql/17/bin",
    "/usr/lib/postgresql/16/bin",
    "/usr/lib/postgresql/15/bin",
  ];
  return candidates.find((d) => d !== undefined && existsSync(join(d, "initdb")));
}

/** Runs a PostgreSQL program, as the `postgres` user when we are root (initdb refuses root). */
function pgRun(bin: string, program: string, args: string[]) {
  const asRoot = userInfo().uid === 0;
  const [cmd, argv] = asRoot
    ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]]
    : [join(bin, program), args];
  return spawnSync(cmd, argv, { encoding: "utf8" });
}

/**
 * A throwaway PostgreSQL cluster in a temp folder: loopback only, its defaults for durability (fsync on,
 * synchronous_commit on, full_page_writes on, wal_sync_method fdatasync); DBOS Transact's peer on it.
 */
export async function startPostgres(installDir: string): Promise<Result<{ peer: Peer }>> {
  const bin = pgBin();
  if (bin === undefined) return { ok: false, why: "PostgreSQL not found (apt-get install -y postgresql)" };
  const dir = mkdtempSync(join(tmpdir(), "vetted-bench-pg-"));
  if (userInfo().uid === 0) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (id.status !== 0) return { ok: false, why: "running as root and there is no postgres user" };
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  const data = join(dir, "data");
  const init = pgRun(bin, "initdb", [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "--no-locale",
    "-E",
    "UTF8",
  ]);
  if (init.status !== 0) return { ok: false, why: `initdb failed: ${init.stderr.trim()}` };
  const port = await freePort();
  const options = [
    "-c listen_addresses=127.0.0.1",
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    "-c fsync=on",
    "-c synchronous_commit=on",
    "-c full_page_writes=on",
    "-c max_connections=200",
  ].join(" ");
  const start = pgRun(bin, "pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  if (start.status !== 0) return { ok: false, why: `pg_ctl start failed: ${start.stderr.trim()}` };
  const stop = async () => {
    pgRun(bin, "pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `postgresql://postgres@127.0.0.1:${port}/vetted_bench_dbos`;
  return {
    ok: true,
    peer: { name: "DBOS", kind: "dbos", script: join(installDir, "dbos.mjs"), args: [url], stop },
  };
}

/** Whether `url` answers 2xx within the time, while `child` runs (so a stray server cannot answer for it). */
async function healthy(url: string, timeoutMs: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** A Restate server's loopback ports. */
export interface RestatePorts {
  node: number;
  ingress: number;
  admin: number;
}

export async function restatePorts(): Promise<RestatePorts> {
  return { node: await freePort(), ingress: await freePort(), admin: await freePort() };
}

/**
 * Spawns `restate-server` over `dir` on `ports` and waits until it is healthy (a restart passes the same
 * folder and ports). Its defaults for durability: one node, replication 1; its log server fsyncs its
 * RocksDB WAL (`log-server.rocksdb-disable-wal-fsync = false`).
 */
export async function launchRestateServer(
  exe: string,
  dir: string,
  ports: RestatePorts,
): Promise<Result<{ child: ChildProcess }>> {
  const child: ChildProcess = spawn(exe, ["--base-dir", dir, "--bind-address", `127.0.0.1:${ports.node}`], {
    env: {
      ...process.env,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ports.ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${ports.admin}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${ports.node}/`,
      RESTATE_DISABLE_TELEMETRY: "true",
      RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: "512 MiB",
      RESTATE_LOG_FILTER: "warn",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  if (!(await healthy(`http://127.0.0.1:${ports.admin}/health`, 30_000, child))) {
    await stopChild(child);
    return { ok: false, why: `restate-server did not become healthy: ${stderr.trim()}` };
  }
  return { ok: true, child };
}

/** SIGTERMs `child` unless it has exited already, and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/**
 * The `restate-server` binary itself: npm's `.bin/restate-server` is a node wrapper that spawns it, and a
 * SIGKILL of the wrapper would leave the server running.
 */
export function restateExe(installDir: string): string {
  const pkg = `@restatedev/restate-server-${process.platform}-${process.arch}`;
  return join(installDir, "node_modules", pkg, "bin", "restate-server");
}

/** A Restate server on loopback (see {@link launchRestateServer}), its data in a temp folder. */
export async function startRestate(installDir: string): Promise<Result<{ peer: Peer }>> {
  const exe = restateExe(installDir);
  if (!existsSync(exe)) return { ok: false, why: `${exe} is missing` };
  const dir = mkdtempSync(join(tmpdir(), "vetted-bench-restate-"));
  const ports = await restatePorts();
  const endpoint = await freePort();
  const server = await launchRestateServer(exe, dir, ports);
  if (!server.ok) {
    rmSync(dir, { recursive: true, force: true });
    return server;
  }
  const stop = async () => {
    await stopChild(server.child);
    rmSync(dir, { recursive: true, force: true });
  };
  const args = [`http://127.0.0.1:${ports.ingress}`, `http://127.0.0.1:${ports.admin}`, String(endpoint)];
  return {
    ok: true,
    peer: { name: "Restate", kind: "restate", script: join(installDir, "restate.mjs"), args, stop },
  };
}

type Figure = { ms: number } | { samples: number[] };

/** Runs one part of the workload in the peer's child process; its figure is the last line it prints. */
export async function runPeer(peer: Peer, part: string, n: number): Promise<Result<{ figure: Figure }>> {
  const child = spawn(process.execPath, [peer.script, part, String(n), ...peer.args], {
    cwd: dirname(peer.script),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    err = (err + c.toString()).slice(-2000);
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const last = out.trim().split("\n").at(-1) ?? "";
  if (code !== 0 || !last.startsWith("{")) {
    return { ok: false, why: `exit ${code}: ${(err || out).trim().slice(-600)}` };
  }
  return { ok: true, figure: JSON.parse(last) as Figure };
}
