import { parseArgs } from "node:util";
import { startFuzzServer } from "./fuzz-server.js";
import { describeFailure, runFuzz } from "./runner.js";

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
    const logged = target.server
      .stderr()
      .split("\n")
      .filter((line) => line.includes("unhandled error"));
    if (logged.length > 0) {
      process.stdout.write(`the server logged ${logged.length} unhandled errors; the first ones:\n`);
      for (const line of logged.slice(0, 10)) process.stdout.write(`  ${line.slice(0, 600)}\n`);
    }
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
