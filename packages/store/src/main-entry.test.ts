import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsx = join(root, "..", "..", "node_modules", ".bin", "tsx");

/** Runs `code` (an ES module) in a child process where drizzle-orm and @libsql/client cannot be imported. */
function runWithoutDrivers(code: string): string {
  return execFileSync(
    tsx,
    ["--conditions=@vetted/source", "--import", "./src/tests/register-without-drivers.mjs", "--eval", code],
    { cwd: root, encoding: "utf8", timeout: 30_000 },
  ).trim();
}

describe("the main entry", () => {
  it("loads and works in a folder without drizzle-orm or @libsql/client", () => {
    const out = runWithoutDrivers(`
      import { compileUserRegex, encodeCursor, migrateWithRetry } from "@vetted/store";
      console.log(compileUserRegex("^a+$").test("aaa"), typeof encodeCursor, typeof migrateWithRetry);
    `);
    expect(out).toBe("true function function");
  });

  it("names the missing peer when a part that needs it is used", () => {
    const out = runWithoutDrivers(`
      import { migrateWithRetry } from "@vetted/store";
      await migrateWithRetry({}, [{ folder: "drizzle", table: "t" }]).catch((e) => console.log(e.message));
    `);
    expect(out).toContain("drizzle-orm");
  });
});
