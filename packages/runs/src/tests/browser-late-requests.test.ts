import { describe, expect, it } from "vitest";
import type { Run } from "../domain/run.js";
import type { RunsEngine } from "../platform.js";
import { target } from "./browser-flows.js";
import { useBrowserSuite } from "./browser-suite.js";
import { waitFor } from "./harness.js";
import { startSink } from "./sink.js";

/**
 * A request to a protected provider that a page sends a moment after a step's action (a card form that
 * tokenises before it posts) is that step's: the step pauses for approval, exactly once, and approved, that
 * step runs again and the request leaves once. These pin the engine's wait for late requests
 * (`lateRequestWindowMs`, domain/browser-steps.ts, used by core/browser-step.ts): any change that shortens or
 * skips it must keep them green.
 */
const suite = useBrowserSuite("vetted-late-");

const settled = (r: Run) => r.status !== "queued" && r.status !== "running";

/**
 * How the page's control sends its request to the provider, after the step's action. The four before the last go
 * through what a page-side count of pending timers and requests would not see: a worker's own timer, a
 * message port, the crypto thread (a card tokenised before it posts), the load of an allowed resource.
 */
const LATER: Record<string, string> = {
  "timeout-0": "setTimeout(send, 0)",
  "timeout-50": "setTimeout(send, 50)",
  "timeout-120": "setTimeout(send, 120)",
  "timeout-140": "setTimeout(send, 140)",
  microtask: "queueMicrotask(send)",
  "animation-frame": "requestAnimationFrame(() => send())",
  "promise-chain": "Promise.resolve().then(() => new Promise((r) => setTimeout(r, 60))).then(send)",
  // The worker starts with the page (a tokeniser kept ready): the click only posts it a message.
  "worker-timer": "worker.postMessage(0)",
  "message-port":
    "(() => { const c = new MessageChannel(); c.port1.onmessage = () => send(); c.port2.postMessage(0); })()",
  "crypto-digest": "crypto.subtle.digest('SHA-256', new Uint8Array(1 << 22)).then(() => send())",
  "resource-load":
    "(() => { const i = new Image(); i.onload = i.onerror = () => send(); i.src = '/slow?ms=20'; })()",
  // The page's main thread is busy from 60 ms to 460 ms after the click (a tokeniser's work in script, once
  // the click has returned): its 120 ms timer runs 460 ms after the click, still "a moment later" on the
  // page's clock, which the engine's wait also runs on.
  "busy-main-thread":
    "setTimeout(() => { const end = performance.now() + 400; while (performance.now() < end); }, 60); setTimeout(send, 120)",
};

/** Sent past the default window: the click's only when the step's own `late_request_ms` reaches past it. */
const PAST_WINDOW: Record<string, string> = { "timeout-600": "setTimeout(send, 600)" };

/** A shop page whose "Send" button (and field, and list) reach the provider's `/collect` as `kind` tells. */
function latePage(kind: string, payUrl: string): string {
  const collect = JSON.stringify(`${payUrl}/collect`);
  const send = `function send() { fetch(${collect}, { method: "POST", mode: "no-cors", body: "card=4242" }).catch(() => {}); }
const worker = new Worker(URL.createObjectURL(new Blob(["onmessage = () => setTimeout(() => postMessage(1), 60)"])));
worker.onmessage = () => send();`;
  const later = LATER[kind] ?? PAST_WINDOW[kind] ?? "";
  const controls =
    kind === "form"
      ? `<form method="post" action="${payUrl}/pay"><input type="hidden" name="sca" value="0"><button type="submit">Send</button></form>`
      : kind === "form-timeout-50"
        ? `<form method="post" action="${payUrl}/pay" onsubmit="event.preventDefault(); setTimeout(() => this.submit(), 50)"><input type="hidden" name="sca" value="0"><button type="submit">Send</button></form>`
        : `<button type="button" onclick="${later.replace(/"/g, "&quot;")}">Send</button>
<label for="note">Note</label><input id="note" oninput="setTimeout(send, 120)">
<label for="size">Size</label><select id="size" onchange="setTimeout(send, 120)"><option>S</option><option>M</option></select>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Late</title>
<script>${send}</script></head><body><h1>Late</h1><label for="pin">PIN</label><input id="pin">${controls}</body></html>`;
}

/** A page (served cross-site, so in its own process) whose main thread is busy for 900 ms when told. */
const BUSY_FRAME = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Busy</title>
<script>addEventListener("message", () => { const end = performance.now() + 900; while (performance.now() < end); });</script>
</head><body><p>Busy</p></body></html>`;

/**
 * A shop page whose "Send" button keeps its cross-site frame busy (the engine's 3-D Secure check reads
 * every frame's text, so it waits for that frame) and sends to the provider 300 ms after the click: past
 * the wait for late requests, while the step still checks.
 */
function busyFramePage(frameUrl: string, payUrl: string): string {
  const send = `fetch(${JSON.stringify(`${payUrl}/collect`)}, { method: "POST", mode: "no-cors", body: "card=4242" }).catch(() => {})`;
  const click = `document.querySelector('iframe').contentWindow.postMessage(0, '*'); setTimeout(() => ${send}, 300)`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Late</title></head><body>
<h1>Late</h1><label for="pin">PIN</label><input id="pin"><iframe src="${frameUrl}"></iframe>
<button type="button" onclick="${click.replace(/"/g, "&quot;")}">Send</button></body></html>`;
}

async function servePages() {
  const payUrl = suite.site.payUrl;
  const shop = await startSink(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://shop");
    if (url.pathname === "/slow") {
      await new Promise((r) => setTimeout(r, Number(url.searchParams.get("ms") ?? 0)));
      res.statusCode = 204;
      return void res.end();
    }
    res.setHeader("content-type", "text/html; charset=utf-8");
    if (url.pathname === "/busy") return void res.end(BUSY_FRAME);
    const kind = url.searchParams.get("kind") ?? "";
    if (kind === "busy-frame") {
      const frameUrl = `http://localhost:${(req.headers.host ?? "").split(":")[1] ?? ""}/busy`;
      return void res.end(busyFramePage(frameUrl, payUrl));
    }
    res.end(latePage(kind, payUrl));
  });
  suite.onClose(shop.close);
  return shop;
}

/** What reached the provider for `path`. */
const providerSaw = (path: string) =>
  suite.site.requests().filter((r) => r === `POST ${suite.site.payHost}${path}`).length;

/**
 * Runs open → the acting step → two looks a moment apart (a request told late would pause one of those),
 * checks the pause is the acting step's and nothing left, approves, and checks the request left once.
 * `tight`: a step types a secret into the page first, so the later captures are masked and taken after
 * the wait: between the action and its outcome there is then only the wait (on a loaded machine the
 * early "after" capture would otherwise stretch that time by itself).
 */
async function pausesTheActingStep(
  engine: RunsEngine,
  url: string,
  acting: Record<string, unknown>,
  expected: { path: string; landed: string; tight: boolean },
): Promise<void> {
  const { path, landed, tight } = expected;
  const pin = {
    id: "pin",
    type: "type",
    target: target({ kind: "label", value: "PIN" }),
    value: "${secrets.pin}",
  };
  const flow = await engine.createFlow({
    name: "late",
    steps: [
      { id: "open", type: "navigate", url },
      ...(tight ? [pin] : []),
      { id: "act", ...acting },
      { id: "look", type: "wait_for", text: landed },
      { id: "moment", type: "wait", seconds: 0.5 },
      { id: "look-again", type: "wait_for", text: landed },
    ] as never,
  });
  const tpl = await engine.createTemplate({
    name: "late",
    flow_id: flow.id,
    params_schema: [{ key: "pin", type: "secret", required: false }],
  });
  const before = providerSaw(path);
  const run = await engine.createRun({ template_id: tpl.id, params: { pin: "1234" } });
  const paused = await waitFor(() => engine.getRun(run.id), settled, 20_000);
  expect(paused.status, paused.error ?? "").toBe("waiting_user");
  expect(paused.wait_context).toMatchObject({
    reason_code: "provider_protected_payment_step",
    provider_domain: suite.site.payHost,
    at_step_id: "act",
  });
  expect(providerSaw(path)).toBe(before);

  await engine.resumeRun(run.id, { kind: "approval", approved: true });
  const done = await waitFor(() => engine.getRun(run.id), settled, 20_000);
  expect(done.status, `${done.error ?? ""} ${JSON.stringify(done.wait_context)}`).toBe("success");
  // The approved step sent it once; nothing after it was paused for it.
  await new Promise((r) => setTimeout(r, 300));
  expect(providerSaw(path)).toBe(before + 1);
}

const send = { type: "click", target: target({ kind: "role", value: "button", name: "Send" }) };

describe("a request to a protected provider a page sends late is the acting step's", {
  timeout: 120_000,
}, () => {
  it.each(Object.keys(LATER))("click, then the page sends it (%s): the click pauses", async (kind) => {
    const { engine } = await suite.engineWith();
    const shop = await servePages();
    const expected = { path: "/collect", landed: "Late", tight: true };
    await pausesTheActingStep(engine, `${shop.url}/?kind=${kind}`, send, expected);
  });

  it.each(["timeout-140", "animation-frame", "worker-timer"])(
    'click, then the page sends it (%s), the "after" capture taken during the wait: the click pauses',
    async (kind) => {
      const { engine } = await suite.engineWith();
      const shop = await servePages();
      const expected = { path: "/collect", landed: "Late", tight: false };
      await pausesTheActingStep(engine, `${shop.url}/?kind=${kind}`, send, expected);
    },
  );

  it.each(["form", "form-timeout-50"])(
    "click submits a form to the provider (%s): the click pauses",
    async (kind) => {
      const { engine } = await suite.engineWith();
      const shop = await servePages();
      const expected = { path: "/pay", landed: "Payment successful", tight: true };
      await pausesTheActingStep(engine, `${shop.url}/?kind=${kind}`, send, expected);
    },
  );

  it("type, then the page sends it 120 ms after the input: the type step pauses", async () => {
    const { engine } = await suite.engineWith();
    const shop = await servePages();
    const type = { type: "type", target: target({ kind: "label", value: "Note" }), value: "gift" };
    const expected = { path: "/collect", landed: "Late", tight: true };
    await pausesTheActingStep(engine, `${shop.url}/?kind=none`, type, expected);
  });

  it("select, then the page sends it 120 ms after the change: the select step pauses", async () => {
    const { engine } = await suite.engineWith();
    const shop = await servePages();
    const select = { type: "select", target: target({ kind: "label", value: "Size" }), option: "M" };
    const expected = { path: "/collect", landed: "Late", tight: true };
    await pausesTheActingStep(engine, `${shop.url}/?kind=none`, select, expected);
  });
});

describe("a step's own late_request_ms", { timeout: 120_000 }, () => {
  it("1000 ms: a request the page sends 600 ms after the click pauses the click, and approved leaves once", async () => {
    const { engine } = await suite.engineWith();
    const shop = await servePages();
    const expected = { path: "/collect", landed: "Late", tight: true };
    const late = { ...send, late_request_ms: 1_000 };
    await pausesTheActingStep(engine, `${shop.url}/?kind=timeout-600`, late, expected);
  });

  it("the default (150 ms): the same request is told by a later step, and nothing left", async () => {
    const { engine } = await suite.engineWith();
    const shop = await servePages();
    const flow = await engine.createFlow({
      name: "late-default",
      steps: [
        { id: "open", type: "navigate", url: `${shop.url}/?kind=timeout-600` },
        { id: "act", ...send },
        { id: "look", type: "wait_for", text: "Late" },
        { id: "moment", type: "wait", seconds: 1 },
        { id: "look-again", type: "wait_for", text: "Late" },
      ] as never,
    });
    const before = providerSaw("/collect");
    const run = await engine.createRun({ flow_id: flow.id });
    const paused = await waitFor(() => engine.getRun(run.id), settled, 20_000);
    expect(paused.status, paused.error ?? "").toBe("waiting_user");
    expect(paused.wait_context).toMatchObject({ reason_code: "provider_protected_payment_step" });
    // The page's timer 150 ms ahead runs before its 600 ms one, so the click's window has closed by then.
    expect(["look", "look-again"]).toContain(paused.wait_context?.at_step_id);
    expect(providerSaw("/collect")).toBe(before);
  });
});

describe("a request to a protected provider stopped while the step still checks its page", {
  timeout: 120_000,
}, () => {
  it("is told by the next step (the run pauses), never cleared untold", async () => {
    const { engine } = await suite.engineWith({
      outbound: { allow: ["127.0.0.1", "localhost", suite.site.payHost] },
    });
    const shop = await servePages();
    const pin = {
      id: "pin",
      type: "type",
      target: target({ kind: "label", value: "PIN" }),
      value: "${secrets.pin}",
    };
    const flow = await engine.createFlow({
      name: "late-check",
      steps: [
        { id: "open", type: "navigate", url: `${shop.url}/?kind=busy-frame` },
        pin,
        { id: "act", ...send },
        { id: "look", type: "wait_for", text: "Late" },
        { id: "moment", type: "wait", seconds: 0.5 },
        { id: "look-again", type: "wait_for", text: "Late" },
      ] as never,
    });
    const tpl = await engine.createTemplate({
      name: "late-check",
      flow_id: flow.id,
      params_schema: [{ key: "pin", type: "secret", required: false }],
    });
    const before = providerSaw("/collect");
    const run = await engine.createRun({ template_id: tpl.id, params: { pin: "1234" } });
    const paused = await waitFor(() => engine.getRun(run.id), settled, 20_000);
    expect(paused.status, paused.error ?? "").toBe("waiting_user");
    expect(paused.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: suite.site.payHost,
    });
    // Sent 300 ms after the click: past the wait, so the next step tells it (on a slow machine, the click).
    expect(["act", "look"]).toContain(paused.wait_context?.at_step_id);
    expect(providerSaw("/collect")).toBe(before);
  });
});
