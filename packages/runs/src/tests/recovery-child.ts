/**
 * A server process for the recovery tests: opens its own engine over the database file in argv (the
 * default 30 s lease), starts its worker and prints `ready <worker id>`; then works until it is killed.
 * Usage: tsx --conditions=@vetted/source recovery-child.ts <db-file> <concurrency>
 */
import { openDatabase } from "@vetted/store/database";
import { createRunsEngine } from "../platform.js";
import { TEST_SECRETS_KEY } from "./harness.js";

const [file, concurrency] = process.argv.slice(2);
if (file === undefined || concurrency === undefined) {
  throw new Error("usage: recovery-child.ts <db-file> <concurrency>");
}
const { db } = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
const engine = createRunsEngine({
  db,
  secretsKey: TEST_SECRETS_KEY,
  pollMs: 20,
  concurrency: Number(concurrency),
});
engine.start();
process.stdout.write(`ready ${engine.workerId}\n`);
