/**
 * A second process for the mark-recommended race: its own connection to the database file in argv, prints
 * `ready`, waits for `go`, marks the template recommended — printing `cleared` from the race hook (between
 * clearing the family's other marks and setting this one) and then holding there `holdMs` — and prints one
 * JSON line: `{ ok, error? }`.
 * Usage: tsx --conditions=@vetted/source recommend-race-child.ts <db-file> <template-id> <hold-ms>
 */
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createResources } from "../core/resources.js";
import { createTemplateLifecycle } from "../core/template-lifecycle.js";
import { TEST_SECRETS_KEY } from "./harness.js";

const [file, templateId, holdText] = process.argv.slice(2);
if (file === undefined || templateId === undefined || holdText === undefined) {
  throw new Error("usage: recommend-race-child.ts <db-file> <template-id> <hold-ms>");
}
const client = createClient({ url: `file:${file}`, timeout: 10_000 });
const r = createResources({ db: drizzle(client), secretsKey: TEST_SECRETS_KEY });
const lifecycle = createTemplateLifecycle(r, {
  afterRecommendedCleared: async () => {
    process.stdout.write("cleared\n");
    await sleep(Number(holdText));
  },
});
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of lines) if (line.trim() === "go") break;
try {
  await lifecycle.markRecommended(templateId);
  process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ ok: false, error: String(error) })}\n`);
}
client.close();
lines.close();
