/**
 * A second process for tests: opens the SQLite file given as argv[2] with a plain libsql client, takes its
 * write lock (`BEGIN IMMEDIATE`), prints `locked`, holds it argv[3] ms, commits, prints `released` and exits.
 * Tests start it from a bundle (`lock-holder.ts`); by hand: `node --import tsx hold-write-lock.ts <file> <ms>`.
 */
import { createClient } from "@libsql/client";

const [file, ms] = process.argv.slice(2);
if (file === undefined || ms === undefined) {
  process.stderr.write("usage: hold-write-lock <sqlite file> <milliseconds>\n");
  process.exit(2);
}
const client = createClient({ url: `file:${file}`, timeout: 10_000 });
const tx = await client.transaction("write");
process.stdout.write("locked\n");
await new Promise((resolve) => setTimeout(resolve, Number(ms)));
await tx.commit();
client.close();
process.stdout.write("released\n");
