import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { watch as chokidarWatch, type FSWatcher } from "chokidar";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "../store/migrate.js";
import { createInboxEngine, type InboxEngine } from "./inbox/index.js";
import { createPreferencesEngine } from "./preferences/index.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  opts: { usePolling?: boolean; stabilityMs?: number; ignore?: string[]; watch?: typeof chokidarWatch } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "fileorg-inbox-"));
  const watchDir = join(dir, "inbox");
  mkdirSync(watchDir);
  const client = createClient({ url: `file:${join(dir, "db.sqlite")}`, timeout: 5000 });
  const db = drizzle(client);
  await migrate(db);
  const preferences = createPreferencesEngine({ db });
  const source = await preferences.save("watch-sources", {
    name: "Inbox",
    path: watchDir,
    enabled: true,
    stability_ms: opts.stabilityMs ?? 300,
    ...(opts.ignore === undefined ? {} : { ignore: opts.ignore }),
  });
  const jobs: string[][] = [];
  const inbox: InboxEngine<{ job_id: string; files: number }> = createInboxEngine({
    db,
    preferences,
    usePolling: opts.usePolling ?? false,
    ...(opts.watch === undefined ? {} : { watch: opts.watch }),
    pollIntervalMs: 50,
    analyzeFiles: async (_s, files) => {
      jobs.push(files.map((f) => f.path));
      return { job_id: `job_${jobs.length}`, files: files.length };
    },
  });
  cleanups.push(() => {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  cleanups.push(() => inbox.stop());
  await inbox.start();
  return { inbox, watchDir, source, jobs };
}

async function files(inbox: InboxEngine<{ job_id: string; files: number }>) {
  const { items } = await inbox.scan();
  return items[0]?.files.map((f) => f.path.split("/").at(-1)) ?? [];
}

describe("inbox engine", { timeout: 20_000 }, () => {
  it("reports a polled file only after its stability delay, never a hidden or ignored one", async () => {
    const { inbox, watchDir } = await setup({ usePolling: true, ignore: ["*.part"] });
    writeFileSync(join(watchDir, "a.pdf"), "a");
    writeFileSync(join(watchDir, ".hidden"), "h");
    writeFileSync(join(watchDir, "b.part"), "p");
    await sleep(120);
    expect(await files(inbox)).toEqual([]);
    await sleep(400);
    expect(await files(inbox)).toEqual(["a.pdf"]);
    expect(inbox.isPolling((await inbox.scan()).items[0]?.watch_source_id ?? "")).toBe(true);
  });

  it("hands exactly the batch to analyze, then reports only newer files", async () => {
    const { inbox, watchDir, source, jobs } = await setup({ stabilityMs: 100 });
    writeFileSync(join(watchDir, "one.txt"), "1");
    writeFileSync(join(watchDir, "two.txt"), "2");
    await sleep(300);
    const [batch] = (await inbox.scan()).items;
    const job = await inbox.analyze(source.id, batch?.batch_id ?? undefined);
    expect(job).toEqual({ job_id: "job_1", files: 2 });
    expect(jobs[0]?.map((p) => p.split("/").at(-1))).toEqual(["one.txt", "two.txt"]);
    expect((await inbox.scan()).items[0]).toMatchObject({ batch_id: null, files: [] });
    await expect(inbox.analyze(source.id)).rejects.toMatchObject({ code: "INBOX_EMPTY" });

    writeFileSync(join(watchDir, "three.txt"), "3");
    await sleep(300);
    const [next] = (await inbox.scan()).items;
    expect(next?.files.map((f) => f.path.split("/").at(-1))).toEqual(["three.txt"]);
    appendFileSync(join(watchDir, "three.txt"), "more");
    await sleep(300);
    await expect(inbox.analyze(source.id, next?.batch_id ?? undefined)).rejects.toMatchObject({
      code: "BATCH_CHANGED",
    });
  });

  it("falls back to polling when the system refuses file events, and keeps reporting files", async () => {
    const created: FSWatcher[] = [];
    const watchThatFails: typeof chokidarWatch = (paths, options) => {
      const w = chokidarWatch(paths, options);
      created.push(w);
      // The first (event-based) watcher meets what an exhausted inotify limit raises.
      if (created.length === 1) {
        setTimeout(
          () => w.emit("error", Object.assign(new Error("watch limit reached"), { code: "ENOSPC" })),
          20,
        );
      }
      return w;
    };
    const { inbox, watchDir, source } = await setup({ stabilityMs: 100, watch: watchThatFails });
    await sleep(100);
    expect(inbox.isPolling(source.id)).toBe(true);
    writeFileSync(join(watchDir, "late.txt"), "l");
    await sleep(400);
    expect(await files(inbox)).toEqual(["late.txt"]);
    expect(created).toHaveLength(2);
  });

  it("refuses an unknown watch source", async () => {
    const { inbox } = await setup();
    await expect(inbox.analyze("watch_nope")).rejects.toMatchObject({ code: "WATCH_SOURCE_NOT_FOUND" });
  });
});
