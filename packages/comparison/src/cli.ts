#!/usr/bin/env node
/**
 * The `vetted-comparison` bin: validate, query and print the schema of comparison documents.
 * Exit codes: 0 valid, 1 invalid, 2 usage error or unreadable file. The same CLI as a function is
 * `runCli` of `@vetted/comparison/cli`.
 */
import process from "node:process";
import { createProcessIo } from "./cli/io.js";
import { runCli } from "./cli/run.js";

runCli(process.argv.slice(2), createProcessIo()).then(
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
