/**
 * bench:peers part (e): kill -9 half-way through n workflows of 5 steps, then recovery after a restart on
 * the same data. Every step GETs a loopback sink run here (answering after 5 ms), which counts it; the
 * engine's process(es) are SIGKILLed once half the steps have been seen (and all n workflows started),
 * fresh ones are started, and this measures from their spawn: until every workflow that was in progress at
 * the kill (1 to 4 of its steps seen) has a step seen again, and until all n have succeeded (the engine's
 * own word); lost steps (a step of a succeeded workflow never seen, counted when all n succeeded), repeated
 * steps (each sighting past the first) and skipped workflows (not succeeded after 120 s).
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { KILL_STEPS, type KillTarget } from "./kill-targets.js";

export interface KillFigures {
  /** Steps seen before the kill, of n × 5. */
  seenAtKill: number;
  /** Workflows with 1 to 4 steps seen at the kill. */
  inProgress: number;
  firstHalfMs: number;
  /** From the restart until the new process(es) were up. */
  readyMs: number;
  /** From the restart until each workflow in progress had a step seen again (NaN: some never did). */
  progressMs: number;
  /** From the restart until all n succeeded (or the give-up). */
  doneMs: number;
  lost: number | undefined;
  repeated: number;
  skipped: number;
}

const hits = new Map<string, number>();
/** Each workflow's first sighting after the kill. */
const againAt = new Map<number, number>();
let killedAt = Number.POSITIVE_INFINITY;
let sent = 0;
let half = Number.POSITIVE_INFINITY;
let onHalf = () => {};

const sink = createServer((req, res) => {
  const url = req.url ?? "";
  sent += 1;
  hits.set(url, (hits.get(url) ?? 0) + 1);
  const now = performance.now();
  const workflow = Number(url.split("/")[1]);
  if (now > killedAt && !againAt.has(workflow)) againAt.set(workflow, now);
  if (sent >= half) onHalf();
  req.resume();
  setTimeout(() => res.end('{"ok":true}'), 5);
});
let sinkUrl: string | undefined;

async function sinkAddress(): Promise<string> {
  if (sinkUrl === undefined) {
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
    sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  }
  return sinkUrl;
}

export function closeSink(): void {
  if (sinkUrl !== undefined) sink.close();
}

/** How many steps of workflow `i` were seen. */
function stepsSeen(i: number): number {
  return KILL_STEPS.filter((s) => (hits.get(`/${i}/${s}`) ?? 0) > 0).length;
}

/** One engine through part (e); `make` builds its target over the sink and a fresh tag for workflow ids. */
export async function killHalfway(
  n: number,
  make: (sink: string, tag: string) => Promise<KillTarget>,
): Promise<KillFigures> {
  hits.clear();
  againAt.clear();
  sent = 0;
  killedAt = Number.POSITIVE_INFINITY;
  half = (n * KILL_STEPS.length) / 2;
  const halfReached = new Promise<void>((resolve) => {
    onHalf = resolve;
  });
  const target = await make(await sinkAddress(), randomBytes(6).toString("hex"));
  try {
    const t0 = performance.now();
    await Promise.all([target.start(), halfReached]);
    await target.kill();
    killedAt = performance.now();
    const firstHalfMs = killedAt - t0;
    const seenAtKill = sent;
    const wip = Array.from({ length: n }, (_, i) => i).filter((i) => {
      const seen = stepsSeen(i);
      return seen > 0 && seen < KILL_STEPS.length;
    });
    const restartAt = performance.now();
    let readyMs = Number.NaN;
    const succeeded = await target.restart(() => {
      readyMs = performance.now() - restartAt;
    });
    const doneMs = performance.now() - restartAt;
    const again = wip.map((i) => againAt.get(i) ?? Number.NaN);
    let repeated = 0;
    let unseen = 0;
    for (let i = 0; i < n; i++) {
      for (const s of KILL_STEPS) {
        const c = hits.get(`/${i}/${s}`) ?? 0;
        if (c === 0) unseen += 1;
        if (c > 1) repeated += c - 1;
      }
    }
    return {
      seenAtKill,
      inProgress: wip.length,
      firstHalfMs,
      readyMs,
      progressMs: again.length === 0 ? 0 : Math.max(...again) - restartAt,
      doneMs,
      lost: succeeded === n ? unseen : undefined,
      repeated,
      skipped: n - succeeded,
    };
  } finally {
    onHalf = () => {};
    await target.close();
  }
}

/** The figures as one line, with the ratios to ours when given. */
export function killText(f: KillFigures, n: number, ours?: KillFigures): string {
  const ms = (v: number) => (Number.isNaN(v) ? "never" : `${Math.round(v).toLocaleString("en")} ms`);
  const ratio = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) ? "–" : (a / b).toFixed(2));
  const ratios =
    ours === undefined
      ? ""
      : ` (÷ vetted: progress ${ratio(f.progressMs, ours.progressMs)}, done ${ratio(f.doneMs, ours.doneMs)})`;
  return (
    `${f.inProgress} in progress at the kill (${f.seenAtKill} steps seen, first half ${ms(f.firstHalfMs)}); ` +
    `after the restart: up in ${ms(f.readyMs)}, all of them progressed again in ${ms(f.progressMs)}, all ${n} done in ${ms(f.doneMs)}${ratios}; ` +
    `lost ${f.lost ?? "–"}, repeated ${f.repeated}, skipped ${f.skipped}`
  );
}
