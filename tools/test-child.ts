/**
 * Child processes of tests (race contenders, SIGKILL victims, second servers), started from a bundle instead of
 * through tsx. Registering tsx and loading the sources costs a child about 1.5–2.5 s of CPU (several seconds of
 * wall time on a busy 2-core machine); the bundle is built once per test process (esbuild via tsup, well under a
 * second) and a child then starts with node alone. The child is still a real, separate process with its own
 * connections, running the current sources.
 *
 * The bundle sits in the package's `node_modules/.cache/`, so the dependencies it leaves external resolve from
 * the package (and `findDrizzleFolder` finds the package's migrations); the workspace's own packages are bundled
 * from their sources (`@vetted/source`), as they may not be built. It is removed when the test process exits,
 * or else by the next test process that bundles in that package.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";

const built = new Map<string, Promise<string>>();
const outDirs: string[] = [];
const swept = new Set<string>();
process.once("exit", () => {
  for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the bundles of test processes that are gone (a test runner may end its workers without `exit`). */
function sweep(cacheDir: string): void {
  if (swept.has(cacheDir) || !existsSync(cacheDir)) return;
  swept.add(cacheDir);
  for (const name of readdirSync(cacheDir)) {
    const pid = Number(/^test-child-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
}

/**
 * Bundles `entries` (name → `.ts` file) into `outDir` as ES modules for node: the workspace's own packages
 * from their sources (`@vetted/source`), every other dependency left external.
 */
export async function bundleForTests(
  entries: Readonly<Record<string, string>>,
  outDir: string,
): Promise<void> {
  const { build } = await import("tsup");
  await build({
    config: false,
    entry: { ...entries },
    outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    bundle: true,
    splitting: false,
    silent: true,
    noExternal: [/^@vetted\//],
    esbuildOptions(options) {
      options.conditions = ["@vetted/source"];
    },
  });
}

/**
 * The path of a bundle of `entry` (a `.ts` child script inside `packageDir`), built once per process; `beside`
 * names more entries bundled next to it (a worker thread's module a bundle starts from beside itself).
 */
export function bundledChild(
  packageDir: string,
  entry: string,
  beside: Readonly<Record<string, string>> = {},
): Promise<string> {
  const found = built.get(entry);
  if (found !== undefined) return found;
  const name = basename(entry).replace(/\.[cm]?ts$/, "");
  const cacheDir = join(packageDir, "node_modules", ".cache");
  sweep(cacheDir);
  const outDir = join(cacheDir, `test-child-${process.pid}-${built.size}`);
  outDirs.push(outDir);
  const bundle = bundleForTests({ ...beside, [name]: entry }, outDir).then(() => join(outDir, `${name}.js`));
  built.set(entry, bundle);
  return bundle;
}
