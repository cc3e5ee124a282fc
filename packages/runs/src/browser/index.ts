export { CHROMIUM_CANDIDATES, CHROMIUM_INSTALL_COMMAND, findChromium } from "./find-chromium.js";
export {
  type AcquireOptions,
  type BrowserHost,
  type BrowserHostLogger,
  type BrowserHostOptions,
  type BrowserHostStatus,
  type BrowserLease,
  createBrowserHost,
  type StorageState,
} from "./host.js";
