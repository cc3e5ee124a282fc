import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ManifestRow } from "@vetted/fileorg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanJson } from "../plan.js";
import { createSandbox, hashTree, runVetted, type Sandbox, VETTED, writeMessyTree } from "./harness.js";

const TOKEN = "cli-test-token-0123456789";

/** `vetted serve --port 0` as a real process; resolves with its URL once it listens. */
async function serve(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const [node, ...rest] = VETTED;
  const child = spawn(node, [...rest, "serve", "--port", "0"], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vetted serve did not listen:\n${stderr}`)), 60_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`vetted serve exited ${code}:\n${stderr}`)));
  });
  return { url, child };
}

/** A row as it reads whatever process made it: paths relative to the source and output folders, no ids. */
function comparable(rows: readonly ManifestRow[], sourceDir: string, outputDir: string) {
  return rows
    .map((r) => ({
      source: relative(sourceDir, r.source_path),
      target: relative(outputDir, r.target_path),
      size: r.size,
      sha256: r.sha256,
      mime: r.mime,
      category: r.category,
      confidence: r.confidence,
      action: r.action,
      bucket: r.review_bucket,
      reasons: r.reason_codes,
      status: r.status,
      conflicts: r.conflict_ids.length,
    }))
    .sort((a, b) => (a.source < b.source ? -1 : 1));
}

describe("vetted against a server (--server), started with vetted serve", () => {
  let box: Sandbox;
  let server: { url: string; child: ChildProcess };
  const dirs = { local: "", remote: "", api: "" };
  let apiJobId = "";

  beforeAll(async () => {
    box = createSandbox();
    for (const name of ["local", "remote", "api"] as const) {
      dirs[name] = join(box.root, name, "mess");
      mkdirSync(dirs[name], { recursive: true });
    }
    writeMessyTree(dirs.local);
    cpSync(dirs.local, dirs.remote, { recursive: true, preserveTimestamps: true });
    cpSync(dirs.local, dirs.api, { recursive: true, preserveTimestamps: true });
    server = await serve({
      VETTED_DATA_DIR: join(box.root, "server-data"),
      VETTED_ALLOWED_ROOTS: box.root,
      VETTED_API_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await once(server.child, "exit");
    }
    box.cleanup();
  });

  it("prints the same plan as standalone, and its --json matches the server's own manifest", async () => {
    const local = await runVetted(
      ["organize", dirs.local, "--out", join(dirs.local, "..", "out"), "--json"],
      box.env,
    );
    expect(local.code).toBe(0);
    const remote = await runVetted(
      ["--server", server.url, "organize", dirs.remote, "--out", join(dirs.remote, "..", "out"), "--json"],
      { VETTED_API_TOKEN: TOKEN },
    );
    expect(remote.code).toBe(0);
    const a = JSON.parse(local.stdout) as PlanJson;
    const b = JSON.parse(remote.stdout) as PlanJson;
    expect(comparable(b.rows, dirs.remote, b.summary.output_dir)).toEqual(
      comparable(a.rows, dirs.local, a.summary.output_dir),
    );
    expect(b.tree).toEqual(a.tree);
    const { source_dir: _s1, output_dir: _o1, plan_hash: _h1, ...sa } = a.summary;
    const { source_dir: _s2, output_dir: _o2, plan_hash: _h2, ...sb } = b.summary;
    expect(sb).toEqual(sa);
    expect(b.conflicts.map((c) => c.kind).sort()).toEqual(a.conflicts.map((c) => c.kind).sort());

    // The text plan is the same too, but for ids and folders.
    const text = async (args: string[], env: Record<string, string>, dir: string) => {
      const run = await runVetted(args, env);
      return run.stdout
        .replaceAll(join(dir, ".."), "<root>")
        .replace(/job_\w+/g, "<job>")
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
    };
    expect(
      await text(["--server", server.url, "show", b.job_id], { VETTED_API_TOKEN: TOKEN }, dirs.remote),
    ).toBe((await text(["show", a.job_id], box.env, dirs.local)).replace(/by cli\b/, "by token"));

    // The server's manifest of a third copy, read straight from its API, has the rows --json printed.
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const queued = (await (
      await fetch(`${server.url}/api/jobs/analyze`, {
        method: "POST",
        headers,
        body: JSON.stringify({ source_dir: dirs.api, output_dir: join(dirs.api, "..", "out") }),
      })
    ).json()) as { job_id: string };
    apiJobId = queued.job_id;
    let status = "queued";
    while (status !== "succeeded") {
      const job = (await (await fetch(`${server.url}/api/jobs/${queued.job_id}`, { headers })).json()) as {
        status: string;
      };
      status = job.status;
      expect(["queued", "running", "succeeded"]).toContain(status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const manifest = (await (
      await fetch(`${server.url}/api/jobs/${queued.job_id}/manifest?limit=500`, { headers })
    ).json()) as { items: ManifestRow[] };
    expect(comparable(a.rows, dirs.local, a.summary.output_dir)).toEqual(
      comparable(manifest.items, dirs.api, join(dirs.api, "..", "out")),
    );
  });

  it("applies the auto_safe rows and undoes them through the server", async () => {
    const env = { VETTED_API_TOKEN: TOKEN };
    const original = hashTree(dirs.remote);
    const run = await runVetted(
      [
        "--server",
        server.url,
        "organize",
        dirs.remote,
        "--out",
        join(dirs.remote, "..", "out"),
        "--apply",
        "--yes",
        "--json",
      ],
      env,
    );
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as PlanJson;
    const safe = plan.rows.filter((r) => r.review_bucket === "auto_safe");
    expect(safe.length).toBe(4);
    for (const row of safe) expect(existsSync(row.target_path)).toBe(true);
    const undo = await runVetted(["--server", server.url, "undo", plan.job_id], env);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain("4 files back where they were");
    expect(hashTree(dirs.remote)).toEqual(original);
  });

  it("runs a rules file on a plan through the server's rules-file endpoint", async () => {
    const file = join(box.root, "rules.yaml");
    writeFileSync(
      file,
      'version: 1\nrules:\n  - name: Scans\n    filters: { name: "scan-*.dat" }\n    actions: { category: documents }\n',
    );
    const run = await runVetted(
      ["--server", server.url, "rules", "run", file, "--job", apiJobId, "--yes", "--json"],
      {
        VETTED_API_TOKEN: TOKEN,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      applied: boolean;
      rules: Array<{ name: string; changed: number }>;
    };
    expect(outcome.applied).toBe(true);
    expect(outcome.rules).toEqual([expect.objectContaining({ name: "Scans", changed: 3 })]);
  });

  it("exits 2 without the server's token, and when no server answers", async () => {
    const denied = await runVetted(["--server", server.url, "jobs"], {});
    expect([denied.code, denied.stderr]).toEqual([2, expect.stringContaining("UNAUTHORIZED")]);
    const closed = await runVetted(["jobs"], { VETTED_SERVER: "http://127.0.0.1:9" });
    expect([closed.code, closed.stderr]).toEqual([2, expect.stringContaining("SERVER_UNREACHABLE")]);
  });
});
