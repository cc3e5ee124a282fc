import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type CliIo, createProcessIo, EXIT, runCli, VERSION } from "./cli-api.js";
import { createSampleDocument } from "./tests/fixtures.js";

const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
  exports: Record<string, Record<string, string>>;
};

function capture(extra: Partial<CliIo> = {}) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    cwd: process.cwd(),
    env: {},
    stdout: (text) => {
      out.stdout += text;
    },
    stderr: (text) => {
      out.stderr += text;
    },
    ...extra,
  };
  return { io, out };
}

describe("@vetted/comparison/cli", () => {
  it("is the package's ./cli export, built to its own entry", () => {
    expect(packageJson.exports["./cli"]).toEqual({
      "@vetted/source": "./src/cli-api.ts",
      types: "./dist/cli-api.d.ts",
      default: "./dist/cli-api.js",
    });
    expect(VERSION).toBe(packageJson.version);
  });

  it("runs under another program name, as `vetted comparison` does", async () => {
    const { io, out } = capture({ programName: "vetted comparison" });
    expect(await runCli(["check", "--frobnicate"], io)).toBe(EXIT.usage);
    expect(out.stderr).toBe(
      "vetted comparison: Unknown option '--frobnicate'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--frobnicate\"\n" +
        "Usage: vetted comparison check [options] <files, globs or ->...\n" +
        'Run "vetted comparison check --help" for the options.\n',
    );
  });

  it("reads - through the io's readStdin, and reports - as unreadable without one", async () => {
    const text = JSON.stringify(createSampleDocument());
    const piped = capture({ readStdin: async () => text });
    expect(await runCli(["check", "-", "--curated", "audience"], piped.io)).toBe(EXIT.ok);
    expect(piped.out.stdout).toBe("0 errors, 0 warnings in 1 file (1 clean)\n");
    const closed = capture();
    expect(await runCli(["check", "-"], closed.io)).toBe(EXIT.usage);
    expect(closed.out.stdout).toContain(
      "<stdin>: cannot read the file (standard input is not available to read <stdin>)",
    );
    expect(await runCli(["check", "-", "-"], piped.io)).toBe(EXIT.usage);
  });

  it("wires the real process", () => {
    const io = createProcessIo();
    expect(io).toMatchObject({ cwd: process.cwd(), env: process.env, programName: "vetted-comparison" });
    expect(typeof io.readStdin).toBe("function");
  });
});
