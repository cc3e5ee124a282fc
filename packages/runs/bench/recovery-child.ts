/**
 * The server process of the recovery benches: an engine over the database file in argv at its defaults (a
 * 30 s lease, concurrency 4 unless the third argument says otherwise); prints `ready` once its worker
 * started, then works until it is killed.
 * Usage: node --conditions=@vetted/source --import tsx bench/recovery-child.ts <db-file> <hex key> [concurrency]
 */
import { openDatabase } from "@vetted/store/database";
import { createRunsEngine } from "../src/index.js";

const [file, key, concurrency] = process.argv.slice(2);
if (file === undefined || key === undefined) throw new Error("usage: recovery-child.ts <db-file> <hex key>");
const { db } = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
const engine = createRunsEngine({
  db,
  secretsKey: Buffer.from(key, "hex"),
  ...(concurrency === undefined ? {} : { concurrency: Number(concurrency) }),
});
engine.start();
process.stdout.write("ready\n");
