import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerProcess, startServerProcess } from "../tests/server-process.js";
import type { OpenApiDocument } from "./openapi-operations.js";
import type { ValueContext } from "./schema-values.js";

/** A real server on a loopback port over a temp data dir, seeded with a flow, a template, a run and a job. */
export interface FuzzServer {
  url: string;
  doc: OpenApiDocument;
  context: Omit<ValueContext, "doc">;
  server: ServerProcess;
  /** Stops the server and the sink and removes every temp file. */
  close(): Promise<void>;
}

async function startSink(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end('{"ok":true,"items":[1,2,3]}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function post(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`seeding ${path} failed: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function get(url: string, path: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${url}${path}`)).json()) as Record<string, unknown>;
}

function makeTree(root: string, outside: string): void {
  mkdirSync(join(root, "files", "sub"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "outside the roots");
  writeFileSync(join(root, "files", "a.txt"), "alpha");
  writeFileSync(join(root, "files", "report.pdf"), "%PDF-1.4 fuzz");
  writeFileSync(join(root, "files", "sub", "c.txt"), "gamma");
  symlinkSync(outside, join(root, "files", "escape"));
  symlinkSync(outside, join(root, "link-out"));
}

async function seedIds(url: string, root: string): Promise<Record<string, string[]>> {
  const flow = await post(url, "/api/flows", {
    name: "fuzz",
    steps: [{ id: "gate", type: "approval_gate" }],
  });
  const flowId = String(flow.id);
  const template = await post(url, "/api/templates", {
    name: "fuzz",
    flow_id: flowId,
    params_schema: [{ key: "x", type: "string" }],
  });
  const run = await post(url, "/api/runs", { flow_id: flowId });
  const job = await post(url, "/api/jobs/analyze", {
    source_dir: join(root, "files"),
    output_dir: join(root, "out"),
  });
  const jobId = String(job.job_id);
  for (let i = 0; i < 200; i++) {
    const state = await get(url, `/api/jobs/${jobId}`);
    if (state.status !== "queued" && state.status !== "running") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const manifest = await get(url, `/api/jobs/${jobId}/manifest`);
  const rows = Array.isArray(manifest.items) ? manifest.items : [];
  const rowIds = rows.map((row: { id?: unknown; row_id?: unknown }) => String(row.row_id ?? row.id));
  return {
    flow_id: [flowId],
    template_id: [String(template.id)],
    run_id: [String(run.id)],
    job_id: [jobId],
    row_id: rowIds.length > 0 ? rowIds : ["row_nope"],
    id: [flowId, jobId],
  };
}

/** Starts the fuzz target: allowed roots are a temp dir; a symlink in it leads to another temp dir outside. */
export async function startFuzzServer(): Promise<FuzzServer> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vetted-fuzz-")));
  const root = join(base, "root");
  const outside = join(base, "outside");
  makeTree(root, outside);
  const sink = await startSink();
  const server = await startServerProcess({
    VETTED_DATA_DIR: join(base, "data"),
    VETTED_ALLOWED_ROOTS: root,
    LOG_LEVEL: "error",
    VETTED_RUNS_POLL_MS: "50",
    // The inbound-SMS webhook on, so hostile callbacks meet its auth (unconfigured it answers 503 by design).
    VETTED_VONAGE_INBOUND_TOKEN: "fuzz-inbound-token-0123",
    VETTED_VONAGE_SIGNATURE_SECRET: "fuzz-signature-secret-0123",
  });
  try {
    const doc = (await get(server.url, "/api/openapi.json")) as unknown as OpenApiDocument;
    const ids = await seedIds(server.url, root);
    // The local model parses its 300 MB word-vector table on first use (seconds, once per data dir): load it
    // now, so the fuzzer's per-request limit judges handlers, not that one-time load.
    await post(server.url, "/api/embeddings/batch", { texts: ["warm up the local model"], model: "local" });
    const paths = [
      root,
      join(root, "files"),
      join(root, "files", "a.txt"),
      join(root, "files", "sub"),
      join(root, "out"),
      join(root, "files", "escape"),
      join(root, "files", "escape", "secret.txt"),
      join(root, "link-out"),
      join(root, "..", "outside"),
      `${root}/./files/../files`,
      outside,
      "/etc",
      "/",
      "..",
      "../..",
      "relative/dir",
      "",
      join(root, "does-not-exist"),
      `${root}/\u0000`,
      "~",
      "C:\\Windows",
    ];
    return {
      url: server.url,
      doc,
      context: { ids, paths, urls: [`${sink.url}/ok`, `${sink.url}/json?x=1`] },
      server,
      async close() {
        await server.kill();
        await new Promise<void>((resolve) => sink.server.close(() => resolve()));
        rmSync(base, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server.kill();
    sink.server.close();
    rmSync(base, { recursive: true, force: true });
    throw err;
  }
}
