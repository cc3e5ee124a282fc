// Prints, last, what a CI run's record must show though its tasks' output interleaves above:
// - each test that failed once and passed on its retry (from the JSON reports the test scripts write to
//   `.vitest/`), with its first error: a flaky test is named on every run, green or red;
// - when the run failed, what each failed turbo task said about its failures.
// Usage: node .ci/failures.mjs LOG MAX_LINES
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

const [logPath, maxLinesArg = "70"] = process.argv.slice(2);
const maxLines = Number(maxLinesArg);
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour sequences is the point
const stripColour = (text) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
const firstLine = (text) =>
  stripColour(String(text ?? ""))
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.trim()
    .slice(0, 240) ?? "";

/** Tests that failed, then passed on a retry: `[where › name, first error]`. */
function flakyTests() {
  const found = [];
  for (const top of ["packages", "apps"]) {
    if (!existsSync(top)) continue;
    for (const pkg of readdirSync(top)) {
      const dir = join(top, pkg, ".vitest");
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
        let report;
        try {
          report = JSON.parse(readFileSync(join(dir, file), "utf8"));
        } catch {
          continue;
        }
        // Vitest: a passed test with failure messages passed on a retry.
        for (const result of report.testResults ?? [])
          for (const test of result.assertionResults ?? [])
            if (test.status === "passed" && (test.failureMessages ?? []).length > 0)
              found.push([
                `${pkg} › ${basename(result.name ?? "")} › ${test.fullName}`,
                firstLine(test.failureMessages[0]),
              ]);
        // Playwright: a test whose outcome is "flaky".
        const walk = (suite) => {
          for (const spec of suite.specs ?? [])
            for (const test of spec.tests ?? [])
              if (test.status === "flaky") {
                const failed = (test.results ?? []).find((r) => r.status !== "passed");
                found.push([
                  `${pkg} › ${spec.file ?? suite.file} › ${spec.title}`,
                  firstLine(failed?.error?.message),
                ]);
              }
          for (const child of suite.suites ?? []) walk(child);
        };
        for (const suite of report.suites ?? []) walk(suite);
      }
    }
  }
  return found;
}

/** What each failed turbo task (named on the log's `Failed:` line) printed about its failures. */
function failedTasks(lines, budget) {
  const log = lines.join("\n");
  const failed = [...log.matchAll(/^\s*Failed:\s+(.+)$/gm)].flatMap((m) =>
    m[1].split(",").map((t) => t.trim()),
  );
  const marker = /(FAIL|×|✘|Error|expected|timed out|Timeout|AssertionError|Failed Tests|⎯⎯)/;
  const share = Math.max(Math.floor(budget / Math.max(failed.length, 1)), 8);
  const out = [];
  for (const task of failed) {
    const prefix = `${task.replace("#", ":")}:`;
    const own = lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
    const start = own.findIndex((line) => /Failed Tests|FAIL /.test(line));
    const chosen = (start >= 0 ? own.slice(start) : own.filter((line) => marker.test(line))).filter(
      (line) => line.trim() !== "",
    );
    const cut =
      chosen.length > share - 1
        ? [...chosen.slice(0, share - 2), `… ${chosen.length - share + 2} more lines`]
        : chosen;
    out.push(`== ${task}: its failures ==`, ...cut);
  }
  return out;
}

const lines = existsSync(logPath ?? "") ? stripColour(readFileSync(logPath, "utf8")).split("\n") : [];
const flaky = flakyTests().slice(0, 15);
const out = [];
if (flaky.length > 0) {
  out.push(`== ${flaky.length} test(s) failed once and passed on their retry ==`);
  for (const [name, error] of flaky) out.push(`  ${name}`, `    first error: ${error}`);
}
const failures = failedTasks(lines, Math.max(maxLines - out.length, 8));
out.push(...failures);
if (out.length > 0) process.stdout.write(`\n${out.join("\n")}\n`);
