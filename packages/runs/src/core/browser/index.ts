export { CHROMIUM_CANDIDATES, CHROMIUM_INSTALL_COMMAND, findChromium } from "./find-chromium.js";
export { createBrowserHost, DEFAULT_HOLDING, type HoldPolicy, type LeasePurpose } from "./host.js";
export type {
  AcquireOptions,
  BrowserHost,
  BrowserHostLogger,
  BrowserHostOptions,
  BrowserHostStatus,
  BrowserLease,
  StorageState,
} from "./host-api.js";
