import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { findChromium } from "../browser/find-chromium.js";
import { navigateStep } from "./browser-navigate.js";
import type { StepContext } from "./step-type.js";

let browser: Browser;
let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.end("<p>here</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const executablePath = findChromium(process.env);
  browser = await chromium.launch(executablePath === undefined ? {} : { executablePath });
});

afterAll(async () => {
  await browser.close();
  await new Promise((resolve) => server.close(resolve));
});

it("opens its page in a page whose last navigation was stopped, though the stopped one's error page commits late", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.route("http://127.0.0.2:8081/**", (route) => route.abort("blockedbyclient"));
  const ctx: StepContext = {
    runId: "run_1",
    stepId: "open",
    signal: new AbortController().signal,
    attempt: 1,
    retries: 0,
    fetch,
    startedAt: 0,
    now: () => 0,
    browser: {
      page,
      approved: true,
      holdsSecret: false,
      protectedDomainOf: () => undefined,
      screenshot: async () => undefined,
    },
  };
  // The guard stops the navigation to the provider (the run pauses there, keeping its page); Chromium
  // commits its error page a moment after `goto` rejects, which would cut short the next navigation.
  const toProvider = {
    id: "open",
    type: "navigate" as const,
    url: "http://127.0.0.2:8081/pay",
    timeout_ms: 10_000,
  };
  const stopped = await navigateStep.execute(toProvider, ctx).catch((err: Error) => err);
  expect(String(stopped)).toContain("ERR_BLOCKED_BY_CLIENT");
  // Resumed at once, the same step opens its page.
  const step = { ...toProvider, url: `${base}/ok` };
  const outcome = await navigateStep.execute(step, ctx);
  expect(outcome).toMatchObject({ kind: "completed", detail: { status: 200 } });
  expect(page.url()).toBe(`${base}/ok`);
  await context.close();
});
