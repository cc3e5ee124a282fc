import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post = (body?: unknown) => ({
  method: "POST",
  headers: { ...LOCAL, "Content-Type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

interface Scan {
  items: Array<{
    watch_source_id: string;
    batch_id: string | null;
    files: Array<{ path: string; size: number; mtime: number }>;
  }>;
}

async function watchedApp(stabilityMs: number) {
  t = await createTestApp();
  const dir = join(t.dir, "inbox");
  mkdirSync(dir);
  const res = await t.app.request(
    "/api/preferences/watch-sources",
    post({ name: "Inbox", path: dir, enabled: true, stability_ms: stabilityMs }),
  );
  expect(res.status).toBe(200);
  await t.deps.inbox.start();
  const scan = async () =>
    (await (await (t as TestApp).app.request("/api/inbox/scan", post())).json()) as Scan;
  return { dir, scan };
}

const names = (scan: Scan) => scan.items[0]?.files.map((f) => f.path.split("/").at(-1)) ?? [];

describe("inbox scan", () => {
  it("reports a dropped file only after the stability delay, and not a file still growing", async () => {
    const { dir, scan } = await watchedApp(500);
    writeFileSync(join(dir, "dropped.pdf"), "%PDF-1.4 hello");
    writeFileSync(join(dir, "growing.bin"), "start");
    await sleep(100);
    expect(names(await scan())).toEqual([]);
    // Keep appending to growing.bin for longer than the delay.
    for (let i = 0; i < 8; i++) {
      await sleep(100);
      appendFileSync(join(dir, "growing.bin"), `chunk ${i}`);
    }
    const later = await scan();
    expect(names(later)).toEqual(["dropped.pdf"]);
    expect(later.items[0]?.files[0]).toMatchObject({ size: 14 });
    expect(later.items[0]?.batch_id).toMatch(/^batch_/);
  });

  it("answers the same batch id for a second scan with no change, and another once a file changes", async () => {
    const { dir, scan } = await watchedApp(150);
    writeFileSync(join(dir, "a.txt"), "a");
    writeFileSync(join(dir, "b.txt"), "b");
    await sleep(400);
    const first = await scan();
    const second = await scan();
    expect(names(first)).toEqual(["a.txt", "b.txt"]);
    expect(second.items[0]?.batch_id).toBe(first.items[0]?.batch_id);
    writeFileSync(join(dir, "c.txt"), "c");
    await sleep(400);
    const third = await scan();
    expect(third.items[0]?.batch_id).not.toBe(first.items[0]?.batch_id);
  });

  it("survives a burst of thousands of events and then reports every file", async () => {
    const { dir, scan } = await watchedApp(300);
    mkdirSync(join(dir, "burst"));
    for (let i = 0; i < 3000; i++)
      writeFileSync(join(dir, "burst", `f${String(i).padStart(4, "0")}.txt`), `${i}`);
    let last: Scan | undefined;
    for (let attempt = 0; attempt < 40; attempt++) {
      await sleep(250);
      last = await scan();
      if (last.items[0]?.files.length === 3000) break;
    }
    expect(last?.items[0]?.files).toHaveLength(3000);
    const health = await (t as TestApp).app.request("/api/health", { headers: LOCAL });
    expect(health.status).toBe(200);
  });

  it("lists nothing for a disabled source", async () => {
    t = await createTestApp();
    await t.app.request("/api/preferences/watch-sources", post({ name: "Off", path: t.dir, enabled: false }));
    const res = await t.app.request("/api/inbox/scan", post());
    expect(await res.json()).toEqual({ items: [], next_cursor: null });
  });
});
