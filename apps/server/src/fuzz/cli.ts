import { parseArgs } from "node:util";
import { startFuzzServer } from "./fuzz-server.js";
import { describeFailure, runFuzz } from "./runner.js";

/** Groups the server's own "unhandled error" log lines by route and message, so causes can be triaged. */
function summarizeServerErrors(stderr: string): void {
  const groups = new Map<string, number>();
  for (const line of stderr.split("\n")) {
    const route = /unhandled error in (\S+ \S+)/.exec(line)?.[1];
    if (route === undefined) continue;
    const message = /"message":"((?:[^"\\]|\\.){0,120})/.exec(line.slice(line.indexOf('"err"')))?.[1] ?? "";
    const key = `${route} — ${message}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  if (groups.size === 0) return;
  process.stdout.write("the server logged these unhandled errors:\n");
  for (const [key, n] of groups) process.stdout.write(`  ${n} × ${key}\n`);
}

/**
 * `pnpm fuzz [--count 10000] [--seed N] [--only I,J]`: fuzzes a fresh real server from its live OpenAPI
 * document, prints the count, the per-status tallies and every failure with its seed; exits 1 on failure.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      count: { type: "string", default: "10000" },
      seed: { type: "string" },
      only: { type: "string" },
      concurrency: { type: "string", default: "4" },
    },
  });
  const count = Number(values.count);
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
  const only = values.only?.split(",").map(Number);
  if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(seed)) {
    process.stderr.write("usage: pnpm fuzz [--count N] [--seed N] [--only I,J] [--concurrency N]\n");
    return 2;
  }
  const target = await startFuzzServer();
  const started = Date.now();
  try {
    process.stdout.write(`fuzzing ${target.url} with seed ${seed}: ${only?.length ?? count} requests\n`);
    const report = await runFuzz({
      baseUrl: target.url,
      doc: target.doc,
      context: target.context,
      count,
      seed,
      concurrency: Number(values.concurrency),
      ...(only === undefined ? {} : { only }),
    });
    const tallies = Object.entries(report.tallies)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}: ${n}`)
      .join(", ");
    process.stdout.write(
      `sent ${report.count} requests in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    process.stdout.write(`statuses: ${tallies}\n`);
    for (const failure of report.failures) process.stdout.write(`${describeFailure(failure)}\n`);
    const fiveHundreds = Object.entries(report.tallies)
      .filter(([status]) => /^5/.test(status))
      .reduce((sum, [, n]) => sum + n, 0);
    process.stdout.write(
      `result: ${report.failures.length === 0 ? "PASS" : "FAIL"} — ${fiveHundreds} × 5xx, ${report.failures.length} failures` +
        (report.failures.length === 0 ? "\n" : ` (reproduce: pnpm fuzz --seed ${seed} --only <index>)\n`),
    );
    return report.failures.length === 0 ? 0 : 1;
  } finally {
    summarizeServerErrors(target.server.stderr());
    await target.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fuzz: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);
