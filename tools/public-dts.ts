/**
 * After `tsup` built a package's declarations: points their Drizzle imports at our adapter types
 * (`@vetted/store/drizzle-types`, see packages/store/types/drizzle.d.ts), so a consumer type-checks them
 * with `skipLibCheck: false` (Drizzle's own declarations do not compile that way). Fails when a
 * declaration still names a Drizzle module the adapter does not cover.
 *
 * Also marks each import of an optional peer (`peerDependenciesMeta.*.optional`, e.g. `playwright-core`)
 * with `// @ts-ignore`: a consumer who did not install that peer type-checks our declarations (the peer's
 * types are then `any`), and one who did gets them in full.
 *
 * Usage (a package's build script): tsup && tsx ../../tools/public-dts.ts
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const COVERED = new Set(["drizzle-orm/libsql", "drizzle-orm/sqlite-core"]);
const dist = join(process.cwd(), "dist");
const own = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as {
  name: string;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const optionalPeers = Object.entries(own.peerDependenciesMeta ?? {})
  .filter(([, meta]) => meta.optional === true)
  .map(([name]) => name);
const IGNORE = "// @ts-ignore an optional peer: its types are `any` where it is not installed";

/** `text` with each import of an optional peer preceded by {@link IGNORE} (once). */
function markOptionalPeers(text: string): string {
  return text
    .replaceAll(`${IGNORE}\n`, "")
    .replace(/^(import [^\n]* from '([^']+)';)$/gm, (line, _whole: string, specifier: string) => {
      const peer = optionalPeers.some((p) => specifier === p || specifier.startsWith(`${p}/`));
      return peer ? `${IGNORE}\n${line}` : line;
    });
}
// @vetted/store reaches its own file relatively; the others through its `./drizzle-types` export.
const target = own.name === "@vetted/store" ? "../types/drizzle.js" : "@vetted/store/drizzle-types";
const problems: string[] = [];
for (const file of readdirSync(dist).filter((f) => f.endsWith(".d.ts"))) {
  const path = join(dist, file);
  const text = readFileSync(path, "utf8");
  // A bare `import 'drizzle-orm/…';` (left where a chunk's declarations were split out) only loads Drizzle's
  // own declarations, which do not compile under skipLibCheck: false; it declares nothing, so it goes.
  const adapted = text
    .replace(/^import '(drizzle-orm[^']*)';\n/gm, "")
    .replace(/from '(drizzle-orm[^']*)'/g, (whole, specifier: string) => {
      if (!COVERED.has(specifier)) {
        problems.push(`${file}: imports ${specifier}`);
        return whole;
      }
      return `from '${target}'`;
    });
  const rewritten = markOptionalPeers(adapted);
  if (rewritten !== text) writeFileSync(path, rewritten);
}
if (problems.length > 0) {
  process.stderr.write(
    `public-dts: declarations name Drizzle modules the adapter types do not cover:\n${problems.join("\n")}\n`,
  );
  process.exit(1);
}
