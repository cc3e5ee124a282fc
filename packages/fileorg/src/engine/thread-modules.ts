import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * How a file thread loads one of this package's modules. A build has each such module beside the bundle as
 * a tsup entry of its own (`dist/<name>.js`), imported by URL. From the sources (tests, `tsx` runs) the
 * thread requires tsx's CommonJS hook first and then the `.ts` file: synchronous and in the thread itself,
 * where tsx's ES module hooks would start a loader thread per file thread (about a second each).
 */
export type ThreadModule = { url: string; tsx: null } | { path: string; tsx: string };

/** The thread module `name` (a file of `src/engine/`, a tsup entry of the same name). */
export function threadModule(name: string): ThreadModule {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith(".ts")) return { url: new URL(`./${name}.js`, import.meta.url).href, tsx: null };
  return {
    path: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)),
    tsx: createRequire(here).resolve("tsx/cjs/api"),
  };
}

/**
 * The worker-side loader (JavaScript for a file thread's script): `loadThreadModule(module)` answers a
 * promise of the module's exports.
 */
export const THREAD_MODULE_LOADER = `
function loadThreadModule(module) {
  if (module.tsx === null) return import(module.url);
  require(module.tsx).register();
  return Promise.resolve(require(module.path));
}
`;
