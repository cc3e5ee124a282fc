import { createRequire } from "node:module";

let libsql: typeof import("@libsql/client") | undefined;

/**
 * `@libsql/client`, loaded when the first client is made rather than when this package is imported:
 * importing a package that re-exports `openDatabase` costs nothing until a database is opened.
 * `openDatabase` loads it as an ES module first (the copy Drizzle's driver uses, so its error classes are
 * the ones callers test against); a client made on its own before that loads it synchronously.
 */
export function driver(): typeof import("@libsql/client") {
  libsql ??= createRequire(import.meta.url)("@libsql/client") as typeof import("@libsql/client");
  return libsql;
}

/** Loads `@libsql/client` as an ES module (see {@link driver}). */
export async function loadDriver(): Promise<typeof import("@libsql/client")> {
  libsql ??= await import("@libsql/client");
  return libsql;
}
