// The long crash soak: `pnpm --filter @vetted/fileorg soak [--trials N] [--files N] [--copy]`.
// Same trial as the suite's crash test (a child applies, is SIGKILLed at a random moment, recovery runs,
// every invariant is checked, rollback must restore the tree exactly), many more times.
import { createCrashBench } from "../src/tests/crash-trials.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const trials = arg("--trials", 200);
const files = arg("--files", 1000);
const bench = await createCrashBench(files, process.argv.includes("--copy"));
let failures = 0;
let midway = 0;
try {
  for (let i = 0; i < trials; i++) {
    const outcome = await bench.trial();
    if (outcome.appliedBeforeRecovery > 0 && outcome.appliedBeforeRecovery < files) midway++;
    if (outcome.problems.length > 0) {
      failures++;
      console.error(
        `trial ${i} (killed after ${outcome.killedAfterMs} ms):\n  ${outcome.problems.join("\n  ")}`,
      );
    } else {
      console.log(
        `trial ${i}: ok (killed after ${outcome.killedAfterMs} ms, ${outcome.appliedBeforeRecovery}/${files} applied)`,
      );
    }
  }
} finally {
  await bench.close();
}
console.log(`${trials} trials, ${midway} killed mid-apply, ${failures} with problems`);
process.exit(failures === 0 ? 0 : 1);
