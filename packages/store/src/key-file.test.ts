import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadKeyFile } from "./key-file.js";

const base = { envName: "VETTED_TEST_KEY", envValue: undefined, fileName: "test.key" };

describe("per-installation key files", () => {
  it("generates a 0600 key once and reads the same key back", () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "vetted-key-")), "data");
    const first = loadKeyFile({ ...base, dataDir });
    expect(first).toHaveLength(32);
    expect(statSync(join(dataDir, "test.key")).mode & 0o777).toBe(0o600);
    expect(loadKeyFile({ ...base, dataDir }).equals(first)).toBe(true);
  });

  it("prefers the environment value and refuses a short one", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vetted-key-"));
    const key = loadKeyFile({ ...base, dataDir, envValue: "a-long-enough-secret" });
    expect(key).toHaveLength(32);
    expect(() => loadKeyFile({ ...base, dataDir, envValue: "short" })).toThrow(/at least 16/);
  });

  it("refuses a key file that does not hold a 32-byte key instead of replacing it", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vetted-key-"));
    writeFileSync(join(dataDir, "test.key"), "abcd\n");
    expect(() => loadKeyFile({ ...base, dataDir })).toThrow(/32-byte/);
    expect(readFileSync(join(dataDir, "test.key"), "utf8")).toBe("abcd\n");
  });
});
