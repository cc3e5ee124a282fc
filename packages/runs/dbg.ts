import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createBrowserHost, createRunsEngine, migrate } from "./src/index.js";
import { startTestSite } from "./src/testing.js";

const site = await startTestSite();
const host = createBrowserHost({ executablePath: "/usr/bin/chromium" });
await host.warm();
const dir = mkdtempSync(join(tmpdir(), "dbg-"));
const client = createClient({ url: `file:${join(dir, "b.db")}` });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);
const engine = createRunsEngine({
  db,
  secretsKey: Buffer.alloc(32, 7),
  browser: host,
  dataDir: dir,
  pollMs: 20,
});
engine.start();
const by = (kind: string, value: string, name?: string) => ({
  selectors: [{ kind, value, ...(name ? { name } : {}) }],
});
const flow = await engine.createFlow({
  name: "b",
  steps: [
    { id: "open", type: "navigate", url: `${site.url}/login` },
    { id: "email", type: "type", target: by("label", "Email"), value: site.email },
    { id: "password", type: "type", target: by("label", "Password"), value: site.password },
    { id: "sign_in", type: "click", target: by("role", "button", "Sign in") },
    { id: "account", type: "navigate", url: `${site.url}/account` },
  ] as never,
});
for (let k = 0; k < 3; k++) {
  const t0 = performance.now();
  const run = await engine.createRun({ flow_id: flow.id });
  for (;;) {
    const r = await engine.getRun(run.id);
    if (r.status === "success" || r.status === "failed") break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const total = performance.now() - t0;
  const ev = (await engine.listEvidence(run.id)).items;
  console.log(
    "total",
    total.toFixed(0),
    "in steps",
    ev.reduce((a, e) => a + e.duration_ms, 0),
    ev.map((e) => `${e.step_id}:${e.duration_ms}`).join(" "),
  );
}
await engine.stop();
await host.close();
await site.close();
