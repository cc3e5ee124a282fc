import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "./migrate.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("migrate", () => {
  it("lets two connections migrate one fresh database at the same time, as two first starts do", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vetted-fileorg-migrate-"));
    dirs.push(dir);
    const url = `file:${join(dir, "shared.db")}`;
    const clients = [createClient({ url, timeout: 5000 }), createClient({ url, timeout: 5000 })];
    try {
      await Promise.all(clients.map((c) => migrate(drizzle(c))));
      await migrate(drizzle(clients[0] ?? createClient({ url })));
      const tables = await clients[0]?.execute(
        "SELECT name FROM sqlite_master WHERE name IN ('fileorg_jobs', 'fileorg_inbox_seen')",
      );
      expect(tables?.rows).toHaveLength(2);
    } finally {
      for (const c of clients) c.close();
    }
  });
});
