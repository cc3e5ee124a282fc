export { CHROMIUM_CANDIDATES, CHROMIUM_INSTALL_COMMAND, findChromium } from "./find-chromium.js";
export {
  type AcquireOptions,
  type BrowserHost,
  type BrowserHostLogger,
  type BrowserHostOptions,
  type BrowserHostStatus,
  type BrowserLease,
  createBrowserHost,
  DEFAULT_HOLDING,
  type HoldPolicy,
  type LeasePurpose,
  type StorageState,
} from "./host.js";
