#!/usr/bin/env node
/**
 * The `vetted` command. Exit codes: 0 ok, 1 findings or refused, 2 usage or environment error.
 *
 * @module @vetted/cli/bin
 */
import process from "node:process";
import { processIo } from "./io.js";
import { runVetted } from "./program.js";

runVetted(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `vetted: INTERNAL: unexpected failure: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
