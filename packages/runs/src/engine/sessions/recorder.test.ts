import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFlowDraft } from "../../domain/flow-draft.js";
import { attachRecorder } from "./recorder.js";

const LOGIN = `<!doctype html><title>Login</title>
<form method="post" action="/done">
  <label for="email">Email</label><input id="email" name="email" type="email">
  <label>Password <input name="password" type="password"></label>
  <label for="otp">Code</label><input id="otp" name="otp" autocomplete="one-time-code">
  <select name="size" aria-label="Size"><option>S</option><option>M</option></select>
  <button type="submit" data-testid="sign-in">Sign in</button>
</form>`;

let server: Server;
let base = "";
let browser: Browser;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader("Content-Type", "text/html");
    res.end(req.url === "/done" ? "<h1>Welcome</h1>" : LOGIN);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: process.env.VETTED_CHROMIUM_PATH ?? "/usr/bin/chromium",
  });
});

afterAll(async () => {
  await browser.close();
  server.close();
});

describe("the in-page recorder", () => {
  it("records typing with secret fields as references, choices and the submitting click, with scored selectors", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const recorder = await attachRecorder(context, page, () => Date.now());
    await page.goto(`${base}/login`);
    await page.getByLabel("Email").click();
    await page.getByLabel("Email").pressSequentially("ann@example.com");
    await page.getByLabel("Password").fill("hunter2-secret");
    await page.getByLabel("Code").fill("123456");
    await page.getByLabel("Size").selectOption("M");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/done`);
    await context.close();

    const json = JSON.stringify(recorder.events);
    expect(json).not.toContain("hunter2-secret");
    expect(json).not.toContain("123456");
    const draft = buildFlowDraft(`${base}/login`, recorder.events);
    expect(draft.steps.map((s) => s.type)).toEqual(["navigate", "type", "type", "type", "select", "click"]);
    expect(draft.steps[1]).toMatchObject({ value: "ann@example.com" });
    expect(draft.steps[2]).toMatchObject({ value: "${secrets.password}" });
    expect(draft.steps[3]).toMatchObject({ value: "${secrets.otp}" });
    expect(draft.steps[4]).toMatchObject({ option: "M" });
    expect(draft.secrets).toEqual(["otp", "password"]);
    const click = draft.steps[5];
    if (click?.type !== "click") throw new Error("expected a click step");
    expect(click.target.selectors[0]).toEqual({ kind: "testid", value: "sign-in", score: 0.95 });
    expect(click.target.selectors).toContainEqual({
      kind: "role",
      value: "button",
      name: "Sign in",
      score: 0.9,
    });
    expect(click.target.selectors.map((s) => s.kind)).toEqual(
      expect.arrayContaining(["text", "css", "xpath"]),
    );
    const email = draft.steps[1];
    if (email?.type !== "type") throw new Error("expected a type step");
    expect(email.target.selectors.slice(0, 3).map((s) => s.kind)).toEqual(["role", "label", "css"]);
  });
});
