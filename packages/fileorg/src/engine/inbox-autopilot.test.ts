import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "../store/migrate.js";
import { TEST_KEY } from "../tests/harness.js";
import { createFileorgEngine } from "./engine.js";
import { autoApplySafeRows, createInboxEngine } from "./inbox/index.js";
import { createPreferencesEngine } from "./preferences/index.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real core engine and inbox over one file database; analyze of a batch is slowed by `analyzeDelayMs`. */
async function setup(analyzeDelayMs: number) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-autopilot-")));
  const watchDir = join(dir, "inbox");
  mkdirSync(watchDir);
  const client = createClient({ url: `file:${join(dir, "db.sqlite")}`, timeout: 5000 });
  const db = drizzle(client);
  await migrate(db);
  const fileorg = createFileorgEngine({ db, allowedRoots: [dir], journalKey: TEST_KEY });
  await fileorg.start();
  const preferences = createPreferencesEngine({ db, guard: fileorg.guard });
  await preferences.save("watch-sources", {
    name: "Inbox",
    path: watchDir,
    enabled: true,
    stability_ms: 50,
    auto_apply: "auto_safe",
  });
  const analyzed: string[][] = [];
  const inbox = createInboxEngine({
    db,
    preferences,
    guard: fileorg.guard,
    refreshIntervalMs: 30,
    // A slow start: later passes run while this analyze is still starting (its files are already claimed).
    analyzeFiles: async (source, files, actor) => {
      analyzed.push(files.map((f) => f.path));
      await sleep(analyzeDelayMs);
      return fileorg.analyzeFiles(
        { source_dir: source.path, output_dir: join(dir, "sorted"), files: files.map((f) => f.path) },
        actor ?? { actor: "test" },
      );
    },
    autoApply: autoApplySafeRows(fileorg),
  });
  cleanups.push(async () => {
    await fileorg.stop();
    client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  cleanups.push(() => inbox.stop());
  await inbox.start();
  return { dir, watchDir, fileorg, analyzed };
}

describe("inbox autopilot (engine)", () => {
  it("takes a stable batch once while its slow analyze starts, and applies only its auto_safe rows", async () => {
    const { dir, watchDir, fileorg, analyzed } = await setup(250);
    writeFileSync(join(watchDir, "notes.txt"), "notes");
    writeFileSync(join(watchDir, "odd.zzz"), "unknown");
    let applies: Awaited<ReturnType<typeof fileorg.listJobs>>["items"] = [];
    for (let i = 0; i < 100 && applies.length === 0; i++) {
      await sleep(50);
      applies = (await fileorg.listJobs({ kind: "apply" })).items;
    }
    const apply = applies[0];
    expect(apply).toBeDefined();
    const done = await fileorg.waitForJob(apply?.job_id ?? "");
    expect(done).toMatchObject({ status: "succeeded", actor: "inbox-autopilot", result: { moved: 1 } });
    expect(done.params).toMatchObject({ buckets: ["auto_safe"] });
    await sleep(400);
    expect(analyzed).toEqual([[join(watchDir, "notes.txt"), join(watchDir, "odd.zzz")]]);
    expect((await fileorg.listJobs({ kind: "analyze" })).items).toHaveLength(1);
    expect(existsSync(join(watchDir, "notes.txt"))).toBe(false);
    expect(existsSync(join(watchDir, "odd.zzz"))).toBe(true);
    expect(existsSync(join(dir, "sorted"))).toBe(true);
  });
});

describe("inbox autopilot across processes", () => {
  it("takes each file once when two inboxes over two database connections race for the same batch", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-autopilot-race-")));
    const watchDir = join(dir, "inbox");
    mkdirSync(watchDir);
    const dbPath = join(dir, "db.sqlite");
    const first = createClient({ url: `file:${dbPath}`, timeout: 5000 });
    await first.execute("PRAGMA journal_mode = WAL");
    await migrate(drizzle(first));
    const seed = createPreferencesEngine({ db: drizzle(first) });
    await seed.save("watch-sources", {
      name: "Inbox",
      path: watchDir,
      enabled: true,
      stability_ms: 50,
      auto_apply: "auto_safe",
    });
    const taken: Array<{ inbox: string; files: string[] }> = [];
    const applied: string[] = [];
    const clients = [first, createClient({ url: `file:${dbPath}`, timeout: 5000 })];
    const inboxes = clients.map((client, i) => {
      const db = drizzle(client);
      return createInboxEngine({
        db,
        preferences: createPreferencesEngine({ db }),
        refreshIntervalMs: 15,
        // Both inboxes see the batch as new before either claims it.
        raceHooks: {
          beforeClaim: async () => {
            await sleep(100);
          },
        },
        analyzeFiles: async (_source, files) => {
          taken.push({ inbox: `inbox${i}`, files: files.map((f) => f.path) });
          return { job_id: `job_${i}_${taken.length}` };
        },
        autoApply: async (_source, jobId) => {
          applied.push(jobId);
        },
      });
    });
    cleanups.push(() => {
      for (const c of clients) c.close();
      rmSync(dir, { recursive: true, force: true });
    });
    for (const inbox of inboxes) cleanups.push(() => inbox.stop());
    await Promise.all(inboxes.map((inbox) => inbox.start()));
    const names = Array.from({ length: 20 }, (_, i) => `f${String(i).padStart(2, "0")}.txt`);
    for (const name of names) writeFileSync(join(watchDir, name), name);
    for (let i = 0; i < 100 && taken.flatMap((t) => t.files).length < names.length; i++) await sleep(30);
    await sleep(500);
    const all = taken.flatMap((t) => t.files).sort();
    expect(all).toEqual(names.map((n) => join(watchDir, n)));
    expect(applied).toHaveLength(taken.length);
  });
});
