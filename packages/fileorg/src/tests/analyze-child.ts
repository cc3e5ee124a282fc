// A child process that analyzes one folder into its own database and prints the rows as JSON:
// `analyze-child.ts <db> <source dir>`. The unreadable-file test runs it under an unprivileged uid.
import { dirname } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createFileorgEngine } from "../engine/engine.js";
import { migrate } from "../store/migrate.js";
import { TEST_KEY } from "./harness.js";

const [dbPath, src] = process.argv.slice(2);
if (dbPath === undefined || src === undefined) throw new Error("usage: <db> <source dir>");
const client = createClient({ url: `file:${dbPath}`, timeout: 10_000 });
const db = drizzle(client);
await migrate(db);
const engine = createFileorgEngine({ db, allowedRoots: [dirname(src)], journalKey: TEST_KEY });
await engine.start();
const job = await engine.analyze({ source_dir: src }, { actor: "analyze-child" });
const done = await engine.waitForJob(job.job_id, 60_000);
const rows = (await engine.listRows(job.job_id)).items;
process.stdout.write(`${JSON.stringify({ status: done.status, uid: process.getuid?.(), rows })}\n`);
await engine.stop();
client.close();
