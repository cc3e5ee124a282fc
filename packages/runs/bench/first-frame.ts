/**
 * Part of the takeover bench: how soon a person sees the page of a run that just reached its gate. Each
 * trial starts a run (open the takeover page, then an approval gate) with its events followed
 * (`engine.subscribe`, as the console's run page follows them); the moment `gate_opened` is delivered the
 * live view is opened (`engine.openLiveView`, as the console's live view does), and the trial records,
 * on this process's clock, the time from the gate's commit (the `gate_opened` event's `at`) to the
 * event's delivery and to the first frame handed to the live view. The baseline is a bare CDP
 * `Page.startScreencast` on the same page, on a session of its own once the live view is closed: the time
 * from the command to its first frame (or, for a page that does not repaint, to a `Page.captureScreenshot`
 * sent with it, as the live view does). Target: gate to first frame ≤ 1 s at p95.
 */
import type { Page } from "playwright-core";
import type { BrowserLease, createRunsEngine } from "../src/index.js";

type Engine = ReturnType<typeof createRunsEngine>;

/** One trial's figures (ms). */
interface Trial {
  /** Gate committed → its event delivered to a follower (the console's cue to open the live view). */
  notified: number;
  /** Gate committed → the live view's first frame. */
  frame: number;
  /** openLiveView called → the first frame. */
  open: number;
  /** Bare CDP: startScreencast sent → the first frame (or the still sent with it). */
  baseline: number;
}

/** Waits for `what` up to `ms`, or throws. */
function within<T>(ms: number, what: string, wait: Promise<T>): Promise<T> {
  return Promise.race([
    wait,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)),
  ]);
}

/** A bare CDP screencast on `page`: ms from `Page.startScreencast` to its first frame or a still. */
async function bareScreencast(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const first = new Promise<number>((resolve) => {
      cdp.once("Page.screencastFrame", () => resolve(performance.now()));
    });
    const t0 = performance.now();
    const started = cdp.send("Page.startScreencast", { format: "jpeg", quality: 60, everyNthFrame: 1 });
    const still = started
      .then(() => cdp.send("Page.captureScreenshot", { format: "jpeg", quality: 60 }))
      .then(() => performance.now());
    const at = await within(10_000, "bare screencast frame", Promise.race([first, still]));
    await cdp.send("Page.stopScreencast").catch(() => undefined);
    return at - t0;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/** One trial: a new run to its gate, the live view opened on `gate_opened`, then the bare baseline. */
async function trial(engine: Engine, flowId: string, leases: BrowserLease[]): Promise<Trial> {
  const run = await engine.createRun({ flow_id: flowId });
  let notifiedAt = 0;
  let gateAt = 0;
  let openAt = 0;
  let view: Awaited<ReturnType<Engine["openLiveView"]>> | undefined;
  const firstFrame = new Promise<number>((resolve, reject) => {
    const stop = engine.subscribe(run.id, 0, (batch) => {
      const gate = batch.find((e) => e.type === "gate_opened");
      if (gate === undefined || view !== undefined || openAt !== 0) return;
      notifiedAt = Date.now();
      gateAt = Date.parse(gate.at);
      openAt = Date.now();
      stop();
      engine
        .openLiveView(run.id, () => resolve(Date.now()))
        .then((v) => {
          view = v;
        })
        .catch(reject);
    });
  });
  const frameAt = await within(60_000, "live-view frame", firstFrame);
  view?.close();
  const page = [...leases]
    .reverse()
    .find((l) => !l.signal.aborted && l.page.url().includes("/takeover"))?.page;
  if (page === undefined) throw new Error("the run's page was not found among the host's leases");
  const baseline = await bareScreencast(page);
  await engine.resumeRun(run.id, { kind: "approval", approved: false });
  return { notified: notifiedAt - gateAt, frame: frameAt - gateAt, open: frameAt - openAt, baseline };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** Runs `trials` trials and prints p50/p95 of each figure and the target verdict; answers the gate→frame p95. */
export async function benchFirstFrame(
  engine: Engine,
  siteUrl: string,
  leases: BrowserLease[],
  trials: number,
): Promise<number> {
  const flow = await engine.createFlow({
    name: "first frame bench",
    steps: [
      { id: "open", type: "navigate", url: `${siteUrl}/takeover` },
      { id: "person", type: "approval_gate", prompt: "Watch" },
    ] as never,
  });
  await trial(engine, flow.id, leases); // warm-up: the first context and page of the host
  const all: Trial[] = [];
  for (let i = 0; i < trials; i++) all.push(await trial(engine, flow.id, leases));
  const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;
  const line = (label: string, key: keyof Trial) => {
    const values = all.map((t) => t[key]);
    console.log(
      `  ${label.padEnd(50)} p50 ${fmt(quantile(values, 0.5))}  p95 ${fmt(quantile(values, 0.95))}`,
    );
  };
  console.log(`first frame after the gate opens, ${trials} trials`);
  line("gate committed → gate_opened delivered", "notified");
  line("gate committed → first live-view frame", "frame");
  line("openLiveView → first frame", "open");
  line("bare CDP startScreencast → first frame (baseline)", "baseline");
  const p95 = quantile(
    all.map((t) => t.frame),
    0.95,
  );
  const base = quantile(
    all.map((t) => t.baseline),
    0.95,
  );
  console.log(`  ratio p95 (gate → frame ÷ baseline): ${(p95 / base).toFixed(2)}`);
  console.log(
    `  gate → first frame p95 ${p95.toFixed(1)} ms: ${p95 <= 1000 ? "within" : "OVER"} the 1 s target`,
  );
  return p95;
}
