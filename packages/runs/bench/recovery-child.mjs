// The server process of bench:peers part (e), as deployed: plain JavaScript over the built packages
// (`@vetted/runs` and `@vetted/store` from their dist/), started with `node` alone, like the peers' sides.
// Same as recovery-child.ts otherwise. Usage: node bench/recovery-child.mjs <db-file> <hex key> [concurrency]
import { createRunsEngine } from "@vetted/runs";
import { openDatabase } from "@vetted/store/database";

const [file, key, concurrency] = process.argv.slice(2);
if (file === undefined || key === undefined) throw new Error("usage: recovery-child.mjs <db-file> <hex key>");
const { db } = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
const engine = createRunsEngine({
  db,
  secretsKey: Buffer.from(key, "hex"),
  ...(concurrency === undefined ? {} : { concurrency: Number(concurrency) }),
});
engine.start();
process.stdout.write("ready\n");
