/**
 * `pnpm vetted …` in a checkout of the workspace: the root package.json's `vetted` script runs this file
 * from the sources (`exec node --conditions=@vetted/source --import tsx …`, so no build is needed and no
 * pnpm wrapper stays between the terminal and the CLI). It is not part of the published build.
 *
 * pnpm runs a root script in the repository root and says where the person typed the command in
 * `INIT_CWD` (also from a subfolder, and with `pnpm -w vetted` from inside a workspace package): the CLI
 * works from that folder, so relative paths resolve against it. Messages name `pnpm vetted`, the command
 * that works there (`VETTED_COMMAND`).
 *
 * @module @vetted/cli/checkout-bin
 */
import process from "node:process";

const typedIn = process.env.INIT_CWD;
if (typedIn !== undefined && typedIn !== "") process.chdir(typedIn);
process.env.VETTED_COMMAND = "pnpm vetted";
await import("./bin.js");
