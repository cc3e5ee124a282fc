// A child process running one engine until no job is queued or running: `claim-child.ts <db> <root> <go file>`.
import { existsSync } from "node:fs";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createFileorgEngine } from "../engine/engine.js";
import { TEST_KEY } from "./harness.js";

const [dbPath, root, goFile] = process.argv.slice(2);
if (dbPath === undefined || root === undefined || goFile === undefined)
  throw new Error("usage: <db> <root> <go file>");
const client = createClient({ url: `file:${dbPath}`, timeout: 10_000 });
const engine = createFileorgEngine({ db: drizzle(client), allowedRoots: [root], journalKey: TEST_KEY });
let started = 0;
engine.subscribe((m) => {
  if (m.event.type === "started") started++;
});
process.stdout.write("ready\n");
// Both processes start their runners at the same moment: when the parent creates the go file.
while (!existsSync(goFile)) await new Promise((r) => setTimeout(r, 5));
await engine.start();
for (;;) {
  const queued = await engine.listJobs({ status: "queued" });
  const running = await engine.listJobs({ status: "running" });
  if (queued.items.length === 0 && running.items.length === 0) break;
  await new Promise((r) => setTimeout(r, 50));
}
await engine.stop();
client.close();
process.stdout.write(`started ${started}\n`);
