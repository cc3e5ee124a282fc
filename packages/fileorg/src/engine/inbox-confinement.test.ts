import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "../store/migrate.js";
import { createInboxEngine } from "./inbox/index.js";
import { createPathGuard } from "./path-guard.js";
import { createPreferencesEngine } from "./preferences/index.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function setup() {
  const dir = tempDir("fileorg-inbox-roots-");
  const client = createClient({ url: `file:${join(dir, "db.sqlite")}`, timeout: 5000 });
  cleanups.push(() => client.close());
  const db = drizzle(client);
  await migrate(db);
  const guard = createPathGuard([dir]);
  const preferences = createPreferencesEngine({ db, guard });
  // Polling far apart: after the first look no event arrives, so a scan sees only what it checks itself.
  const inbox = createInboxEngine({ db, preferences, guard, usePolling: true, pollIntervalMs: 60_000 });
  cleanups.push(() => inbox.stop());
  return { dir, preferences, inbox };
}

describe("inbox confinement", { timeout: 20_000 }, () => {
  it("refuses to save a watch source outside the roots, directly or through a symlink", async () => {
    const { dir, preferences } = await setup();
    const outside = tempDir("fileorg-inbox-outside-");
    symlinkSync(outside, join(dir, "link"));
    for (const path of [outside, join(dir, "link"), join(dir, "link", "deeper")]) {
      await expect(
        preferences.save("watch-sources", { name: path, path, enabled: true }),
      ).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
    }
    expect((await preferences.list("watch-sources")).items).toEqual([]);
  });

  it("drops a watched file whose folder was swapped for a symlink to an outside folder, even before any event", async () => {
    const { dir, preferences, inbox } = await setup();
    const watched = join(dir, "inbox");
    mkdirSync(join(watched, "sub"), { recursive: true });
    writeFileSync(join(watched, "sub", "report.txt"), "inside");
    await preferences.save("watch-sources", { name: "Inbox", path: watched, enabled: true, stability_ms: 0 });
    await inbox.start();
    expect((await inbox.scan()).items[0]?.files.map((f) => f.size)).toEqual([6]);

    const outside = tempDir("fileorg-inbox-outside-");
    writeFileSync(join(outside, "report.txt"), "outside, and much longer");
    rmSync(join(watched, "sub"), { recursive: true });
    symlinkSync(outside, join(watched, "sub"));
    const scan = await inbox.scan();
    expect(scan.items[0]?.files).toEqual([]);
  });

  it("stops watching a source whose folder now resolves outside the roots, and says why", async () => {
    const { dir, preferences, inbox } = await setup();
    const watched = join(dir, "inbox");
    mkdirSync(watched);
    writeFileSync(join(watched, "mine.txt"), "mine");
    const source = await preferences.save("watch-sources", {
      name: "Inbox",
      path: watched,
      enabled: true,
      stability_ms: 0,
    });
    await inbox.start();
    const outside = tempDir("fileorg-inbox-outside-");
    writeFileSync(join(outside, "secret.txt"), "secret");
    rmSync(watched, { recursive: true });
    symlinkSync(outside, watched);
    const scan = await inbox.scan();
    expect(scan.items).toEqual([
      {
        watch_source_id: source.id,
        batch_id: null,
        files: [],
        error: expect.objectContaining({ code: "PATH_OUTSIDE_ROOT" }),
      },
    ]);
    await expect(inbox.analyze(source.id)).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
  });

  it("refuses runtime settings whose roots or output root lie outside the engine's roots", async () => {
    const { dir, preferences } = await setup();
    const outside = tempDir("fileorg-inbox-outside-");
    await expect(preferences.saveRuntime({ allowed_roots: [outside] })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_ROOT",
    });
    await expect(
      preferences.saveRuntime({ default_output_root: join(outside, "out") }),
    ).rejects.toMatchObject({
      code: "PATH_OUTSIDE_ROOT",
    });
    await expect(
      preferences.saveRuntime({ allowed_roots: [dir], default_output_root: join(dir, "out") }),
    ).resolves.toMatchObject({ default_output_root: join(dir, "out") });
  });
});

describe("stored preference values", () => {
  it("refuses a preference nested deeper than the JSON depth limit before parsing it", async () => {
    const { preferences } = await setup();
    let deep: unknown = "leaf";
    for (let i = 0; i < 5000; i++) deep = { nested: deep };
    await expect(preferences.save("views", { name: "Deep", filter: {}, extra: deep })).rejects.toMatchObject({
      code: "NESTING_TOO_DEEP",
    });
    await expect(preferences.saveRuntime({ limits: deep })).rejects.toMatchObject({
      code: "NESTING_TOO_DEEP",
    });
  });

  it("refuses a review-rule regex the linear-time engine cannot run with REGEX_INVALID", async () => {
    const { preferences } = await setup();
    await expect(
      preferences.save("review-rules", {
        name: "Lookahead",
        enabled: true,
        conditions: { all: [{ field: "name_regex", regex: "^(?=a)a" }] },
        actions: [{ type: "skip" }],
      }),
    ).rejects.toMatchObject({ code: "REGEX_INVALID" });
  });
});
