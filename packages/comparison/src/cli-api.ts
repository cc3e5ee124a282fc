/**
 * The `vetted-comparison` CLI as a function, for tools that offer it under another name (the `vetted`
 * CLI's `vetted comparison …`): `runCli(argv, io)` answers the exit code (0 ok, 1 findings, 2 usage or
 * environment error); `createProcessIo()` wires it to the real process.
 *
 * @module @vetted/comparison/cli
 */
export type { CliIo } from "./cli/io.js";
export { createProcessIo, DEFAULT_PROGRAM_NAME, EXIT } from "./cli/io.js";
export { runCli, VERSION } from "./cli/run.js";
