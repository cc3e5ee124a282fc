#!/usr/bin/env node
/**
 * The `vetted-comparison` command: validate, query and print the schema of comparison documents.
 * Exit codes: 0 valid, 1 invalid, 2 usage error or unreadable file.
 *
 * @module @vetted/comparison/cli
 */
import process from "node:process";
import { runCli } from "./cli/run.js";

runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `vetted-comparison: unexpected failure: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
