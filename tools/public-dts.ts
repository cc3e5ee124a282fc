/**
 * After `tsup` built a package's declarations: points their Drizzle imports at our adapter types
 * (`@vetted/store/drizzle-types`, see packages/store/types/drizzle.d.ts), so a consumer type-checks them
 * with `skipLibCheck: false` (Drizzle's own declarations do not compile that way). Fails when a
 * declaration still names a Drizzle module the adapter does not cover.
 *
 * Usage (a package's build script): tsup && tsx ../../tools/public-dts.ts
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const COVERED = new Set(["drizzle-orm/libsql", "drizzle-orm/sqlite-core"]);
const dist = join(process.cwd(), "dist");
const own = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as { name: string };
// @vetted/store reaches its own file relatively; the others through its `./drizzle-types` export.
const target = own.name === "@vetted/store" ? "../types/drizzle.js" : "@vetted/store/drizzle-types";
const problems: string[] = [];
for (const file of readdirSync(dist).filter((f) => f.endsWith(".d.ts"))) {
  const path = join(dist, file);
  const text = readFileSync(path, "utf8");
  const rewritten = text.replace(/from '(drizzle-orm[^']*)'/g, (whole, specifier: string) => {
    if (!COVERED.has(specifier)) {
      problems.push(`${file}: imports ${specifier}`);
      return whole;
    }
    return `from '${target}'`;
  });
  if (rewritten !== text) writeFileSync(path, rewritten);
}
if (problems.length > 0) {
  process.stderr.write(
    `public-dts: declarations name Drizzle modules the adapter types do not cover:\n${problems.join("\n")}\n`,
  );
  process.exit(1);
}
