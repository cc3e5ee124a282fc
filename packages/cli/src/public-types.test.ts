import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("the published declarations", () => {
  it("of store, fileorg, runs and cli type-check in a consumer with skipLibCheck: false (nodenext and bundler)", () => {
    // Builds the packages (turbo: cached when nothing changed), then type-checks a tiny consumer.
    const run = spawnSync(process.execPath, ["--import", "tsx", "tools/check-public-types.ts", "--build"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.stdout).toContain("nodenext: 0 errors");
    expect(run.stdout).toContain("bundler: 0 errors");
    expect(run.status).toBe(0);
  }, 1_800_000);
});
