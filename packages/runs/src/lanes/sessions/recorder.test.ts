import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Target } from "../../domain/browser-steps.js";
import { buildFlowDraft } from "../../domain/flow-draft.js";
import { startTestSite, type TestSite } from "../../testing/test-site.js";
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
let site: TestSite;

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
  site = await startTestSite();
});

afterAll(async () => {
  await browser.close();
  server.close();
  await site.close();
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

  it("records actions inside a same-origin and a cross-origin frame, scoped to their frame", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const recorder = await attachRecorder(context, page, () => Date.now());
    await page.goto(`${site.url}/frames`);
    const note = page.frameLocator("iframe[name=note]");
    await note.getByLabel("Note").fill("gift");
    await note.getByRole("button", { name: "Save note" }).click();
    const card = page.frameLocator("iframe[name=card]");
    await card.getByLabel("Cardholder").fill("Ada");
    await card.getByLabel("Card number").fill("4242424242424242");
    await page.waitForTimeout(100);
    await context.close();

    expect(JSON.stringify(recorder.events)).not.toContain("4242424242424242");
    const draft = buildFlowDraft(`${site.url}/frames`, recorder.events);
    expect(draft.steps.map((s) => s.type)).toEqual(["navigate", "type", "click", "type", "type"]);
    const [, typed, saved, holder, number] = draft.steps;
    const noteFrame = { url: `${site.url}/frames/note`, name: "note" };
    const cardFrame = { url: `${site.payUrl}/card-form`, name: "card" };
    expect(typed).toMatchObject({ value: "gift", target: { frame: noteFrame } });
    expect(saved).toMatchObject({ target: { frame: noteFrame } });
    // The card heuristic takes the cardholder field for a secret too.
    expect(holder).toMatchObject({ value: "${secrets.holder}", target: { frame: cardFrame } });
    expect(number).toMatchObject({ value: "${secrets.card}", target: { frame: cardFrame } });
    for (const step of draft.steps) {
      if (step.type !== "navigate") expect(Target.safeParse(step.target).success).toBe(true);
    }
  });
});
