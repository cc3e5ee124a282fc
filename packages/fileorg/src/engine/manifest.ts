/** The manifest's modules live in `./manifest/`; this path keeps the names the rest of the package imports. */
export * from "./manifest/index.js";
