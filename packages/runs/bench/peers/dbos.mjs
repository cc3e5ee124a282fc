// The DBOS Transact side of bench:peers, run by peers.ts with `node` from the peers' install folder (it
// imports @dbos-inc/dbos-sdk from there). Argv: <part> <n> <systemDatabaseUrl>.
// Prints one JSON line: { ms } for "throughput", "pure" and "burst", { samples } for "signal".
// The kill parts (env BENCH_SINK, BENCH_TAG): "kill-start" starts n workflows of 5 steps that each GET
// the sink, prints `ready` once all are started, then works until it is SIGKILLed; "kill-recover" launches
// on the same database (DBOS recovers its executor's pending workflows at launch), prints `ready`, then
// `done <k>` once k = n workflows have succeeded (or after 120 s).
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
// The same computations without a checkpoint each: the workflow's start and end are its only writes.
const fiveInline = DBOS.registerWorkflow(
  async () => {
    let total = 0;
    for (let i = 0; i < 5; i++) total += await step();
    return total;
  },
  { name: "fiveInline" },
);
const STEPS = ["s1", "s2", "s3", "s4", "s5"];
const sink = process.env.BENCH_SINK;
const hit = async (n, s) => (await fetch(`${sink}/${n}/${s}`)).text();
const killed = DBOS.registerWorkflow(
  async (n) => {
    for (const s of STEPS) await DBOS.runStep(() => hit(n, s), { name: s });
  },
  { name: "killed" },
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

async function throughput(workflow) {
  await Promise.all(
    Array.from({ length: 20 }, async () => (await DBOS.startWorkflow(workflow)()).getResult()),
  );
  const t0 = performance.now();
  const handles = await Promise.all(Array.from({ length: n }, () => DBOS.startWorkflow(workflow)()));
  await Promise.all(handles.map((h) => h.getResult()));
  return { ms: performance.now() - t0 };
}

const ids = Array.from({ length: n }, (_, i) => `${process.env.BENCH_TAG}-${i}`);
if (part === "kill-start") {
  await Promise.all(ids.map((workflowID, i) => DBOS.startWorkflow(killed, { workflowID })(i)));
  console.log("ready");
  setInterval(() => {}, 1 << 30); // works until killed
  await new Promise(() => {});
} else if (part === "kill-recover") {
  console.log("ready");
  const giveUpAt = Date.now() + 120_000;
  let done = 0;
  while (done < n && Date.now() < giveUpAt) {
    const ok = await DBOS.listWorkflows({
      workflowIDs: ids,
      status: "SUCCESS",
      loadInput: false,
      loadOutput: false,
    });
    done = ok.length;
    if (done < n) await new Promise((r) => setTimeout(r, 10));
  }
  console.log(`done ${done}`);
  await DBOS.shutdown();
  process.exit(0);
}

let out;
if (part === "throughput") {
  out = await throughput(five);
} else if (part === "pure") {
  out = await throughput(fiveInline);
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
