/**
 * A vitest global setup (fileorg's and the server's test runs): bundles the file threads' entry
 * (`engine/readers/worker.ts`) once per run and names it in `VETTED_TEST_READER_BUNDLE`, which the engine's
 * pool starts from its sources instead of registering tsx in every thread (`readers/ts-worker.mjs`). Every
 * analyze and apply starts one to four threads: from the bundle a thread costs about 0.1 s of CPU, through
 * tsx about 0.8 s (and several seconds of wall time on a busy 2-core machine).
 *
 * The threads still run the current sources (bundled at the start of the run, dependencies external and
 * resolved from this package); `inspect-pool.test.ts` keeps one test on the tsx shim, and
 * `built-worker.test.ts` covers the build's own `dist/inspect-worker.js`.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleForTests } from "../../../../tools/test-child.js";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = join(PACKAGE_DIR, "src", "engine", "readers", "worker.ts");

export default async function setup(): Promise<() => void> {
  const outDir = join(PACKAGE_DIR, "node_modules", ".cache", `fileorg-reader-bundle-${process.pid}`);
  await bundleForTests({ "inspect-worker": WORKER }, outDir);
  process.env.VETTED_TEST_READER_BUNDLE = join(outDir, "inspect-worker.js");
  return () => {
    delete process.env.VETTED_TEST_READER_BUNDLE;
    rmSync(outDir, { recursive: true, force: true });
  };
}
