/**
 * A second process for the race tests: opens its own engine (its own connection, its own worker id) over
 * the database file in argv, prints `ready`, waits for `go` on stdin, fires `count` concurrent resumes of
 * one run and prints one JSON line: how many won and the error codes of the others.
 * Usage: tsx --conditions=@vetted/source race-child.ts <db-file> <run-id> <count>
 */
import { createInterface } from "node:readline";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { RunsError } from "../kernel/errors.js";
import { createRunsEngine } from "../platform.js";
import { TEST_SECRETS_KEY } from "./harness.js";

const [file, runId, countText] = process.argv.slice(2);
if (file === undefined || runId === undefined || countText === undefined) {
  throw new Error("usage: race-child.ts <db-file> <run-id> <count>");
}
const client = createClient({ url: `file:${file}`, timeout: 5000 });
const engine = createRunsEngine({ db: drizzle(client), secretsKey: TEST_SECRETS_KEY });
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of lines) if (line.trim() === "go") break;
const outcomes = await Promise.allSettled(
  Array.from({ length: Number(countText) }, () =>
    engine.resumeRun(runId, { kind: "approval", approved: true }),
  ),
);
const codes: Record<string, number> = {};
let won = 0;
for (const o of outcomes) {
  if (o.status === "fulfilled") won += 1;
  else {
    const code = o.reason instanceof RunsError ? `${o.reason.name}:${o.reason.code}` : String(o.reason);
    codes[code] = (codes[code] ?? 0) + 1;
  }
}
process.stdout.write(`${JSON.stringify({ won, codes })}\n`);
await engine.stop();
client.close();
lines.close();
