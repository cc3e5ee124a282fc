// Prints, last, what each failed turbo task said about its failures, so the tail of a red run names the
// failing test and its error (a run's output interleaves the tasks that ran side by side).
import { readFileSync } from "node:fs";

const [logPath, maxLinesArg = "70"] = process.argv.slice(2);
const maxLines = Number(maxLinesArg);
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour sequences is the point
const plain = readFileSync(logPath, "utf8").replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
const lines = plain.split("\n");
const failed = [...plain.matchAll(/^\s*Failed:\s+(.+)$/gm)].flatMap((m) =>
  m[1].split(",").map((t) => t.trim()),
);
// Each failed task gets an equal share of the lines, so one long failure does not hide another task's.
const share = Math.max(Math.floor(maxLines / Math.max(failed.length, 1)), 8);
const marker = /(FAIL|×|✗|Error|expected|timed out|Timeout|AssertionError|Failed Tests|⎯⎯)/;
const out = [];
for (const task of failed) {
  const prefix = `${task.replace("#", ":")}:`;
  const own = lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
  const start = own.findIndex((line) => /Failed Tests|FAIL /.test(line));
  const chosen = start >= 0 ? own.slice(start) : own.filter((line) => marker.test(line));
  const kept = chosen.filter((line) => line.trim() !== "");
  const cut =
    kept.length > share - 1 ? [...kept.slice(0, share - 2), `… ${kept.length - share + 2} more lines`] : kept;
  out.push(`== ${task}: its failures ==`, ...cut);
}
if (out.length > 0) process.stdout.write(`\n${out.join("\n")}\n`);
