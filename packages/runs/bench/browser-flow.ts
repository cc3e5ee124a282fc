/**
 * Bench: a 10-step navigate/type/click flow on the local test site, run through the engine (a run per
 * round: context, steps, evidence screenshots, commits) ÷ the same steps scripted directly with
 * playwright-core in a fresh context of the same browser. Rounds alternate so a load change on a shared
 * machine hits both alike. Target: ratio ≥ 0.9. Run with `pnpm --filter @vetted/runs bench`.
 * A third arm runs the same flow with `late_request_ms: 0` on every acting step (no window for late
 * requests): what the engine costs without that trust setting, printed beside the default, never for it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { SCREENSHOT_QUALITY } from "../src/core/evidence.js";
import { createBrowserHost, createRunsEngine, findChromium, migrate, type RunsEngine } from "../src/index.js";
import { startTestSite, type TestSite } from "../src/testing.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const site = await startTestSite();
const executablePath = findChromium(process.env);
if (executablePath === undefined) throw new Error("no Chromium: apt-get install -y chromium");
const host = createBrowserHost({ executablePath });
await host.warm();
const dir = mkdtempSync(join(tmpdir(), "vetted-browser-bench-"));
const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);
const engine = createRunsEngine({
  db,
  secretsKey: Buffer.alloc(32, 7),
  browser: host,
  dataDir: dir,
  pollMs: 20,
  outbound: { allow: ["127.0.0.1"] },
});
engine.start();

const by = (kind: "label" | "role" | "text", value: string, name?: string) => ({
  selectors: [{ kind, value, ...(name === undefined ? {} : { name }) }],
});

/** The 10 steps: sign in, verify the code, choose shipping, visit two pages. */
function steps(s: TestSite) {
  return [
    { id: "open", type: "navigate", url: `${s.url}/login` },
    { id: "email", type: "type", target: by("label", "Email"), value: s.email },
    { id: "password", type: "type", target: by("label", "Password"), value: s.password },
    { id: "sign_in", type: "click", target: by("role", "button", "Sign in") },
    { id: "to_otp", type: "click", target: by("text", "Go to checkout") },
    { id: "code", type: "type", target: by("label", "One-time code"), value: s.otpCode },
    { id: "verify", type: "click", target: by("role", "button", "Verify") },
    { id: "account", type: "navigate", url: `${s.url}/account` },
    { id: "again", type: "click", target: by("text", "Go to checkout") },
    { id: "checkout", type: "navigate", url: `${s.url}/checkout` },
  ] as const;
}

/**
 * The steps scripted directly in a fresh context. With `shots`, each step is followed by the capture the
 * engine takes as its evidence (one CDP JPEG capture of the page, awaited): the baseline that does the
 * same browser work as the engine, so its ratio isolates the engine's own overhead.
 */
async function direct(s: TestSite, shots: boolean): Promise<void> {
  const lease = await host.acquire("bench-direct");
  const p = lease.page;
  const cdp = shots ? await lease.context.newCDPSession(p) : undefined;
  const shot = async () => {
    await cdp?.send("Page.captureScreenshot", {
      format: "jpeg",
      quality: SCREENSHOT_QUALITY,
      optimizeForSpeed: true,
    });
  };
  try {
    await p.goto(`${s.url}/login`, { waitUntil: "load" });
    await shot();
    await p.getByLabel("Email", { exact: true }).fill(s.email);
    await shot();
    await p.getByLabel("Password", { exact: true }).fill(s.password);
    await shot();
    await p.getByRole("button", { name: "Sign in", exact: true }).click();
    await p.waitForLoadState("load");
    await shot();
    await p.getByText("Go to checkout", { exact: true }).click();
    await p.waitForLoadState("load");
    await shot();
    await p.getByLabel("One-time code", { exact: true }).fill(s.otpCode);
    await shot();
    await p.getByRole("button", { name: "Verify", exact: true }).click();
    await p.waitForLoadState("load");
    await shot();
    await p.goto(`${s.url}/account`, { waitUntil: "load" });
    await shot();
    await p.getByText("Go to checkout", { exact: true }).click();
    await p.waitForLoadState("load");
    await shot();
    await p.goto(`${s.url}/checkout`, { waitUntil: "load" });
    await shot();
  } finally {
    await lease.release();
  }
}

async function viaEngine(e: RunsEngine, flowId: string): Promise<void> {
  const run = await e.createRun({ flow_id: flowId });
  await new Promise<void>((resolve, reject) => {
    const stop = e.subscribe(run.id, 0, (batch) => {
      for (const ev of batch) {
        if (ev.type !== "status_changed") continue;
        if (ev.data.to === "success") {
          stop();
          resolve();
        } else if (ev.data.to === "failed" || ev.data.to === "cancelled") {
          stop();
          reject(new Error(`bench run ${ev.data.to}: ${JSON.stringify(ev.data)}`));
        }
      }
    });
  });
}

const flow = await engine.createFlow({ name: "bench", steps: steps(site) as never });
const noWindow = steps(site).map((step) =>
  step.type === "navigate" || "target" in step ? { ...step, late_request_ms: 0 } : step,
);
const flowNoWindow = await engine.createFlow({ name: "bench-no-window", steps: noWindow as never });
await direct(site, false); // warm-up
await direct(site, true);
await viaEngine(engine, flow.id);
let directMs = 0;
let shotsMs = 0;
let engineMs = 0;
let noWindowMs = 0;
await viaEngine(engine, flowNoWindow.id);
for (let round = 0; round < ROUNDS; round++) {
  let t0 = performance.now();
  await direct(site, false);
  directMs += performance.now() - t0;
  t0 = performance.now();
  await direct(site, true);
  shotsMs += performance.now() - t0;
  t0 = performance.now();
  await viaEngine(engine, flow.id);
  engineMs += performance.now() - t0;
  t0 = performance.now();
  await viaEngine(engine, flowNoWindow.id);
  noWindowMs += performance.now() - t0;
}
const perDirect = directMs / ROUNDS;
const perShots = shotsMs / ROUNDS;
const perEngine = engineMs / ROUNDS;
const perNoWindow = noWindowMs / ROUNDS;
console.log(`10-step browser flow, ${ROUNDS} rounds`);
console.log(`  playwright-core directly:           ${perDirect.toFixed(0)} ms per flow (baseline)`);
console.log(
  `  directly, with a capture per step:  ${perShots.toFixed(0)} ms per flow (the engine's browser work)`,
);
console.log(
  `  through the engine:                 ${perEngine.toFixed(0)} ms per flow (with evidence screenshots)`,
);
console.log(`  ratio (direct ÷ engine):            ${(perDirect / perEngine).toFixed(2)} (target ≥ 0.9)`);
console.log(
  `  ratio (direct with captures ÷ engine): ${(perShots / perEngine).toFixed(2)} (the engine's own overhead)`,
);
console.log(
  `  engine, late_request_ms: 0:          ${perNoWindow.toFixed(0)} ms per flow; direct ÷ it ${(perDirect / perNoWindow).toFixed(2)}, direct with captures ÷ it ${(perShots / perNoWindow).toFixed(2)} (no window for late requests: not the default)`,
);
console.log(
  `  ratio (direct ÷ direct with captures): ${(perDirect / perShots).toFixed(2)} (what the captures alone cost)`,
);

await engine.stop();
await host.close();
await site.close();
client.close();
rmSync(dir, { recursive: true, force: true });
