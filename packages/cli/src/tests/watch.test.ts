import { spawn } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox, VETTED } from "./harness.js";

describe("vetted watch", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = createSandbox();
  });
  afterAll(() => box.cleanup());

  it("analyzes each stable batch in the foreground, applies its auto_safe rows, and stops on SIGINT", async () => {
    const inbox = join(box.root, "inbox");
    mkdirSync(inbox);
    const [node, ...rest] = VETTED;
    const child = spawn(
      node,
      [...rest, "watch", inbox, "--auto-apply", "auto_safe", "--stability", "300", "--interval", "200"],
      {
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...box.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${stdout}\n${stderr}`)), 60_000);
        const check = () => {
          if (!pattern.test(stdout)) return;
          clearTimeout(timer);
          resolve();
        };
        child.stdout.on("data", check);
        check();
      });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    try {
      await seen(/Watching .*inbox \(auto_safe rows applied at once\)/);
      const may2024 = new Date("2024-05-06T12:00:00Z");
      const files: Array<[string, string]> = [
        ["notes.txt", "hello"],
        ["mystery.dat", "what is this"],
      ];
      for (const [name, content] of files) {
        writeFileSync(join(inbox, name), content);
        utimesSync(join(inbox, name), may2024, may2024);
      }
      await seen(/2 new files → job_\S+: 1 auto_safe, 1 waiting for review \(vetted review job_\S+\)/);
      await seen(/applied job_\S+: moved 1 file, 0 failed/);
      expect(existsSync(join(inbox, "documents", "2024", "notes.txt"))).toBe(true);
      expect(existsSync(join(inbox, "notes.txt"))).toBe(false);
      expect(existsSync(join(inbox, "mystery.dat"))).toBe(true);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(stdout).toContain("Stopped watching.");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
