// A child process that applies a manifest and waits to be SIGKILLed: `crash-child.ts <db> <root> <job id> [copy] [trash dir]`.
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createFileorgEngine } from "../engine/engine.js";
import { TEST_KEY } from "./harness.js";

const [dbPath, root, jobId, mode, trashDir] = process.argv.slice(2);
if (dbPath === undefined || root === undefined || jobId === undefined)
  throw new Error("usage: <db> <root> <job id> [copy|link]");
const client = createClient({ url: `file:${dbPath}`, timeout: 10_000 });
const engine = createFileorgEngine({
  db: drizzle(client),
  allowedRoots: [root],
  journalKey: TEST_KEY,
  groupSize: 50,
  // "copy" drives the cross-device path (copy, fsync, verify, unlink) on one device.
  forceCopy: mode === "copy",
  // A test trash (the home trash of `trash` rows), never the real one.
  ...(trashDir !== undefined && trashDir !== "" ? { trashDir } : {}),
});
await engine.start();
const job = await engine.apply({ job_id: jobId }, { actor: "crash-child" });
process.stdout.write(`applying ${job.job_id}\n`);
const done = await engine.waitForJob(job.job_id, 120_000);
process.stdout.write(`finished ${done.status}\n`);
await engine.stop();
client.close();
