// What strategy-pack and saved rules cost at analyze: `pnpm --filter @vetted/fileorg bench:rules [--files N]`
// (default 20,000 small files). The baseline, measured in the same run over the same files, is an analyze by
// the core engine alone (no rules); the figure is an analyze with review wired in — the downloads pack's
// rules and 20 saved rules (globs, extensions, a regex, set_target + approve) acting on every row.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { createFileorg, createFileorgEngine, migrate } from "../src/index.js";

const argFiles = process.argv.indexOf("--files");
const FILES = argFiles > 0 ? Number(process.argv[argFiles + 1]) : 20_000;
const EXTS = ["txt", "md", "csv", "json", "py", "html", "log", "pdf", "part", "xyz"];
const root = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-bench-rules-")));
const src = join(root, "src");

function generate(): void {
  for (let i = 0; i < FILES; i++) {
    const dir = join(src, `d${Math.floor(i / 1000)}`);
    if (i % 1000 === 0) mkdirSync(dir, { recursive: true });
    const name = i % 7 === 0 ? `invoice-${i}` : `file-${i}`;
    writeFileSync(join(dir, `${name}.${EXTS[i % EXTS.length]}`), `file ${i}\n`);
  }
}

async function timedAnalyze(withRules: boolean, run: number): Promise<number> {
  const client = createClient({ url: `file:${join(root, `bench-${withRules}-${run}.db`)}`, timeout: 5000 });
  const db = drizzle(client);
  await migrate(db);
  const options = { db, allowedRoots: [root], journalKey: Buffer.alloc(32, 1) };
  // With rules: composed as the server does (review's saved rules reach analyze through the core's hooks);
  // without: the bare core.
  const composed = withRules ? createFileorg(options) : undefined;
  const fileorg = composed?.fileorg ?? createFileorgEngine(options);
  if (composed !== undefined) {
    const { preferences } = composed;
    for (let r = 0; r < 20; r++) {
      await preferences.save("review-rules", {
        name: `rule ${r}`,
        priority: r,
        conditions: {
          any: [
            { field: "name_glob", glob: `file-${r}*` },
            { field: "extension", in: [`.e${r}`] },
            { field: "name_regex", regex: `^invoice-${r}\\d*$`, flags: "i" },
          ],
        },
        actions: [{ type: "set_target", template: `rules/${r}/{name}{ext}` }, { type: "approve" }],
      });
    }
  }
  await fileorg.start();
  const started = performance.now();
  const job = await fileorg.analyze({ source_dir: src, output_dir: join(root, "out") }, { actor: "bench" });
  const done = await fileorg.waitForJob(job.job_id, 3_600_000);
  const ms = performance.now() - started;
  if (done.status !== "succeeded") throw new Error(`analyze ${done.status}: ${JSON.stringify(done.error)}`);
  await fileorg.stop();
  client.close();
  return ms;
}

generate();
// Alternate the two so the page cache and the shared machine treat them alike; keep the best of each.
const base: number[] = [];
const rules: number[] = [];
for (let run = 0; run < 3; run++) {
  base.push(await timedAnalyze(false, run));
  rules.push(await timedAnalyze(true, run));
}
const b = Math.min(...base);
const r = Math.min(...rules);
console.log(`files: ${FILES}`);
console.log(`analyze, core alone (baseline):   ${b.toFixed(0)} ms`);
console.log(`analyze, pack + 20 saved rules:   ${r.toFixed(0)} ms  (${(r / b).toFixed(2)}x the baseline)`);
rmSync(root, { recursive: true, force: true });
