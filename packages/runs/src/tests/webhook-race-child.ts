/**
 * A dispatcher process for the webhook race test: opens its own webhooks engine (its own connection, its own
 * dispatcher id) over the database file in argv, prints `ready`, starts dispatching on `go`, and stops on
 * `stop` (printing `stopped`).
 * Usage: tsx --conditions=@vetted/source webhook-race-child.ts <db-file>
 */
import { createInterface } from "node:readline";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createWebhooksEngine } from "../lanes/webhooks/webhooks-engine.js";
import { TEST_SECRETS_KEY } from "./harness.js";

const [file] = process.argv.slice(2);
if (file === undefined) throw new Error("usage: webhook-race-child.ts <db-file>");
const client = createClient({ url: `file:${file}`, timeout: 10_000 });
const engine = createWebhooksEngine({
  db: drizzle(client),
  secretsKey: TEST_SECRETS_KEY,
  pollMs: 5,
  concurrency: 4,
  onError: (message, err) => process.stderr.write(`${message}: ${String(err)}\n`),
});
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of lines) {
  if (line.trim() === "go") engine.start();
  if (line.trim() === "stop") break;
}
await engine.stop();
client.close();
process.stdout.write("stopped\n");
lines.close();
