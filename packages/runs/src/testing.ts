/**
 * Test helpers of `@vetted/runs`, for this package's tests, the server's and the bench: a local test site
 * served on loopback (a shop and a payment provider on a second loopback host).
 * @module
 */

export { type ApiShop, type ApiShopOptions, startApiShop } from "./testing/api-shop.js";
export { startTestSite, type TestSite, type TestSiteOptions } from "./testing/test-site.js";
export { type ReceivedHook, type Receiver, startReceiver } from "./testing/webhook-receiver.js";
