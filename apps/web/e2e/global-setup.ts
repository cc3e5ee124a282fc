import { fileURLToPath } from "node:url";
import { build } from "vite";

/** Builds the console once per test run (Vite, a few seconds) so the server serves the current sources. */
export default async function globalSetup(): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await build({ root, logLevel: "warn" });
}
