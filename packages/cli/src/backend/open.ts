import type { CliSettings } from "../settings.js";
import type { Backend } from "./backend.js";
import { createHttpBackend } from "./http.js";
import { createLocalBackend } from "./local.js";

/** The server's backend when `--server`/`VETTED_SERVER` is set, else the embedded engines. */
export function openBackend(settings: CliSettings): Promise<Backend> {
  if (settings.server !== undefined) {
    return Promise.resolve(createHttpBackend({ server: settings.server, token: settings.token }));
  }
  return createLocalBackend(settings);
}
