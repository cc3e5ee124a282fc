// The DBOS Transact side of bench:peers, run by peers.ts with `node` from the peers' install folder (it
// imports @dbos-inc/dbos-sdk from there). Argv: <part> <n> <systemDatabaseUrl>.
// Prints one JSON line: { ms } for "throughput" and "burst", { samples } for "signal".
import { DBOS } from "@dbos-inc/dbos-sdk";

const [part, nText, url] = process.argv.slice(2);
const n = Number(nText);
const tag = `${Date.now().toString(36)}${process.pid}`;

DBOS.setConfig({ name: "vetted-bench", systemDatabaseUrl: url });
const step = async () => 1;
const five = DBOS.registerWorkflow(
  async () => {
    let total = 0;
    for (let i = 0; i < 5; i++) total += await DBOS.runStep(step, { name: `s${i}` });
    return total;
  },
  { name: "five" },
);
const gated = DBOS.registerWorkflow(
  async () => {
    const go = await DBOS.recv("go", 600);
    return DBOS.runStep(async () => `${go} done`, { name: "next" });
  },
  { name: "gated" },
);
await DBOS.launch();

async function startGated(count) {
  const handles = [];
  for (let i = 0; i < count; i++) {
    handles.push(await DBOS.startWorkflow(gated, { workflowID: `${tag}-${i}` })());
  }
  // Let each workflow reach its recv (a send before it is still delivered: DBOS keeps the message).
  await new Promise((r) => setTimeout(r, 500));
  return handles;
}

let out;
if (part === "throughput") {
  await Promise.all(Array.from({ length: 20 }, async () => (await DBOS.startWorkflow(five)()).getResult()));
  const t0 = performance.now();
  const handles = await Promise.all(Array.from({ length: n }, () => DBOS.startWorkflow(five)()));
  await Promise.all(handles.map((h) => h.getResult()));
  out = { ms: performance.now() - t0 };
} else if (part === "signal") {
  const handles = await startGated(n);
  const samples = [];
  for (const h of handles) {
    const t0 = performance.now();
    await DBOS.send(h.workflowID, "ok", "go");
    await h.getResult();
    samples.push(performance.now() - t0);
  }
  out = { samples };
} else {
  const handles = await startGated(n);
  const t0 = performance.now();
  await Promise.all(
    handles.map(async (h) => {
      await DBOS.send(h.workflowID, "ok", "go");
      await h.getResult();
    }),
  );
  out = { ms: performance.now() - t0 };
}
console.log(JSON.stringify(out));
await DBOS.shutdown();
process.exit(0);
