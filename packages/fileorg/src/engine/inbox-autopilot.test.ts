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
    // The delay widens the window between taking a batch and remembering it, where two passes could overlap.
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
  it("takes each stable batch once even when its passes overlap, and applies only its auto_safe rows", async () => {
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
