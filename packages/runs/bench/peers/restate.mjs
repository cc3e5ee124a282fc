// The Restate side of bench:peers, run by peers.ts with `node` from the peers' install folder (it imports
// @restatedev/restate-sdk from there). Argv: <part> <n> <ingressUrl> <adminUrl> <endpointPort>.
// Prints one JSON line: { ms } for "throughput" and "burst", { samples } for "signal".
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
await restate.endpoint().bind(five).bind(gated).listen(Number(portText));

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

await post(`${admin}/deployments`, { uri: `http://127.0.0.1:${portText}`, force: true });

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

let out;
if (part === "throughput") {
  // Warm-up (registration, first partitions' leaders), not timed.
  await Promise.all(Array.from({ length: 20 }, () => post(`${ingress}/five/run`)));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => post(`${ingress}/five/run`)));
  out = { ms: performance.now() - t0 };
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
