/**
 * A child process for the crash test: keeps `CONCURRENCY` writers going against the database at argv[2],
 * forever, through `runTransaction` with group commit. Each writer inserts three rows under its id, yielding
 * between them; one in five throws after two rows (its id starts `bad-`). A writer whose promise resolved
 * prints `ack <id>`, synchronously (stdout is a pipe), so whatever the parent read was acknowledged.
 */
import { sql } from "drizzle-orm";
import { openDatabase } from "../database.js";
import { runTransaction } from "../group-commit.js";

const CONCURRENCY = 40;
const file = process.argv[2];
if (file === undefined) throw new Error("usage: group-commit-writer <file>");
const { db } = await openDatabase({ url: `file:${file}`, groupCommit: { maxWriters: 16, maxBatchMs: 50 } });
await db.run(sql`CREATE TABLE IF NOT EXISTS parts (writer TEXT NOT NULL, part INTEGER NOT NULL)`);

const yieldOnce = () => new Promise((resolve) => setImmediate(resolve));
let next = 0;

async function writer(): Promise<void> {
  const n = next++;
  const id = `${n % 5 === 3 ? "bad" : "ok"}-${process.pid}-${n}`;
  try {
    await runTransaction(db, async (tx) => {
      for (let part = 0; part < 3; part++) {
        if (part === 2 && id.startsWith("bad")) throw new Error("refused");
        await tx.run(sql`INSERT INTO parts (writer, part) VALUES (${id}, ${part})`);
        await yieldOnce();
      }
    });
    process.stdout.write(`ack ${id}\n`);
  } catch {
    process.stdout.write(`fail ${id}\n`);
  }
}

async function lane(): Promise<never> {
  for (;;) await writer();
}

process.stdout.write("ready\n");
await Promise.all(Array.from({ length: CONCURRENCY }, lane));
