/**
 * A process for the inbound-SMS race tests: opens its own engine (its own connection) over the database file
 * in argv, prints `ready`, then for each `go <n>` line on stdin delivers the SMS `<tag>-<n>` (code
 * `<code>`) and prints the receipt (or the error code) as one JSON line.
 * Usage: tsx --conditions=@vetted/source sms-race-child.ts <db-file> <tag> <code>
 */
import { createInterface } from "node:readline";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { RunsError } from "../kernel/errors.js";
import { createRunsEngine } from "../platform.js";
import { TEST_SECRETS_KEY } from "./harness.js";

const [file, tag, code] = process.argv.slice(2);
if (file === undefined || tag === undefined || code === undefined) {
  throw new Error("usage: sms-race-child.ts <db-file> <tag> <code>");
}
const client = createClient({ url: `file:${file}`, timeout: 5000 });
const engine = createRunsEngine({ db: drizzle(client), secretsKey: TEST_SECRETS_KEY });
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of lines) {
  const [verb, n] = line.trim().split(" ");
  if (verb !== "go") break;
  try {
    const receipt = await engine.receiveSms({
      provider: "vonage",
      message_id: `${tag}-${n}`,
      sender: "447700900999",
      recipient: "447700900001",
      text: `${code} is your code`,
    });
    process.stdout.write(`${JSON.stringify(receipt)}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: err instanceof RunsError ? err.code : String(err) })}\n`);
  }
}
await engine.stop();
client.close();
