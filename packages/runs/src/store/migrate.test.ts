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
  it("lets two processes' first start migrate one fresh database at the same time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vetted-runs-migrate-"));
    dirs.push(dir);
    const url = `file:${join(dir, "shared.db")}`;
    const clients = [createClient({ url, timeout: 5000 }), createClient({ url, timeout: 5000 })];
    try {
      await Promise.all(clients.map((c) => migrate(drizzle(c))));
      await migrate(drizzle(clients[0] ?? createClient({ url })));
      const tables = await clients[0]?.execute("SELECT name FROM sqlite_master WHERE name = 'runs_runs'");
      expect(tables?.rows).toHaveLength(1);
    } finally {
      for (const c of clients) c.close();
    }
  });
});
