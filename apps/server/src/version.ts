import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The server's package version, read from its package.json (works from src/ and dist/ alike). */
export const SERVER_VERSION: string = (require("../package.json") as { version: string }).version;
