// The Restate side of bench:peers, run by peers.ts with `node` from the peers' install folder (it imports
// @restatedev/restate-sdk from there). Argv: <part> <n> <ingressUrl> <adminUrl> <endpointPort>.
// Prints one JSON line: { ms } for "throughput", "pure" and "burst", { samples } for "signal".
// The kill parts (env BENCH_SINK, BENCH_TAG): "kill-start" registers the endpoint, starts n workflows of 5
// `ctx.run` steps that each GET the sink, prints `ready` once the ingress has accepted all, then serves
// until it is SIGKILLed; "kill-recover" serves on the same port (the deployment is registered already),
// prints `ready`, then `done <k>` once k = n workflows have their result (attach), or after 120 s.
// The SDK uses Promise.withResolvers (Node 22); on Node 20 it gets this stand-in before it loads.
if (typeof Promise.withResolvers !== "function") {
  Promise.withResolvers = () => {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
const restate = await import("@restatedev/restate-sdk");

const [part, nText, ingress, admin, portText] = process.argv.slice(2);
const n = Number(nText);
const tag = `${Date.now().toString(36)}${process.pid}`;

const step = async () => 1;
const five = restate.service({
  name: "five",
  handlers: {
    run: async (ctx) => {
      let total = 0;
      for (let i = 0; i < 5; i++) total += await ctx.run(`s${i}`, step);
      return total;
    },
  },
});
// The same computations without a checkpoint each: the invocation's input and output are its only entries.
const fiveInline = restate.service({
  name: "fiveInline",
  handlers: {
    run: async () => {
      let total = 0;
      for (let i = 0; i < 5; i++) total += await step();
      return total;
    },
  },
});
const STEPS = ["s1", "s2", "s3", "s4", "s5"];
const sink = process.env.BENCH_SINK;
const hit = async (n, s) => (await fetch(`${sink}/${n}/${s}`)).text();
const killed = restate.workflow({
  name: "killed",
  handlers: {
    run: async (ctx, n) => {
      for (const s of STEPS) await ctx.run(s, () => hit(n, s));
    },
  },
});
const gated = restate.workflow({
  name: "gated",
  handlers: {
    run: async (ctx) => {
      const go = await ctx.promise("go");
      return ctx.run("next", async () => `${go} done`);
    },
    signal: async (ctx, value) => {
      await ctx.promise("go").resolve(value);
    },
  },
});
await restate.endpoint().bind(five).bind(fiveInline).bind(killed).bind(gated).listen(Number(portText));

async function post(url, body) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body ?? null),
    });
    if (res.ok) return res.json().catch(() => null);
    if (attempt > 50) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

if (part !== "kill-recover") {
  await post(`${admin}/deployments`, { uri: `http://127.0.0.1:${portText}`, force: true });
}

async function attach(id) {
  const res = await fetch(`${ingress}/restate/workflow/gated/${id}/attach`);
  if (!res.ok) throw new Error(`attach ${id}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function startGated(count) {
  const ids = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
  await Promise.all(ids.map((id) => post(`${ingress}/gated/${id}/run/send`)));
  // Wait until each workflow is suspended on its promise (its invocation exists and is not running).
  await new Promise((r) => setTimeout(r, 500));
  return ids;
}

async function throughput(service) {
  // Warm-up (registration, first partitions' leaders), not timed.
  await Promise.all(Array.from({ length: 20 }, () => post(`${ingress}/${service}/run`)));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => post(`${ingress}/${service}/run`)));
  return { ms: performance.now() - t0 };
}

/** The workflow's result once it has one; retries while the ingress is down (a restarted server). */
async function attachKilled(id, giveUpAt) {
  while (Date.now() < giveUpAt) {
    const res = await fetch(`${ingress}/restate/workflow/killed/${id}/attach`).catch(() => undefined);
    if (res?.ok) return true;
    await res?.text();
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

const ids = Array.from({ length: n }, (_, i) => `${process.env.BENCH_TAG}-${i}`);
if (part === "kill-start") {
  await Promise.all(ids.map((id, i) => post(`${ingress}/killed/${id}/run/send`, i)));
  console.log("ready");
  await new Promise(() => {}); // serves until killed
} else if (part === "kill-recover") {
  console.log("ready");
  const giveUpAt = Date.now() + 120_000;
  const done = (await Promise.all(ids.map((id) => attachKilled(id, giveUpAt)))).filter(Boolean).length;
  console.log(`done ${done}`);
  process.exit(0);
}

let out;
if (part === "throughput") {
  out = await throughput("five");
} else if (part === "pure") {
  out = await throughput("fiveInline");
} else if (part === "signal") {
  const ids = await startGated(n);
  const samples = [];
  for (const id of ids) {
    const t0 = performance.now();
    await post(`${ingress}/gated/${id}/signal`, "ok");
    await attach(id);
    samples.push(performance.now() - t0);
  }
  out = { samples };
} else {
  const ids = await startGated(n);
  const t0 = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      await post(`${ingress}/gated/${id}/signal`, "ok");
      await attach(id);
    }),
  );
  out = { ms: performance.now() - t0 };
}
console.log(JSON.stringify(out));
process.exit(0);
