// A module-resolution hook for a child process: every import of the optional peers fails, as in a
// consumer's folder that installed neither.
const PEERS = /^(drizzle-orm|@libsql\/client)(\/|$)/;

export async function resolve(specifier, context, next) {
  if (PEERS.test(specifier)) {
    const err = new Error(`Cannot find package '${specifier}' (not installed in this folder)`);
    err.code = "ERR_MODULE_NOT_FOUND";
    throw err;
  }
  return next(specifier, context);
}
