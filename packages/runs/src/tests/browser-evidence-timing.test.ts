import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Run } from "../domain/run.js";
import type { RunsEngine } from "../platform.js";
import { target } from "./browser-flows.js";
import { useBrowserSuite } from "./browser-suite.js";
import { waitFor } from "./harness.js";

const suite = useBrowserSuite("vetted-evidence-timing-");

const GREEN = [0, 128, 0];
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const YELLOW = [255, 255, 0];

/**
 * A page filled by one box, and controls that paint it: "Red" on click; "Blue" as soon as the pointer is
 * over it (the first thing a click does); the "Note" field as soon as it has the focus (the first thing
 * typing does); "Red, then yellow" paints red and, 40 ms later, yellow by itself.
 */
const BOX_PAGE = `<!doctype html><title>box</title>
<body style="margin:0">
<div id="box" style="position:fixed;inset:0;background:rgb(0,128,0)"></div>
<div style="position:relative;z-index:1;padding:8px">
  <button onclick="box.style.background='rgb(255,0,0)'">Red</button>
  <button onmouseover="box.style.background='rgb(0,0,255)'">Blue</button>
  <input aria-label="Note" onfocus="box.style.background='rgb(0,0,255)'">
  <button onclick="box.style.background='rgb(255,0,0)';setTimeout(()=>{box.style.background='rgb(255,255,0)'},40)">Red, then yellow</button>
</div>`;

/**
 * A page filled by a child frame's box, which its buttons paint red at once and yellow 40 ms later (on the
 * page's clock, which the engine's wait also runs on): with a request the click sent ("Red, then yellow
 * with a request"), or with a new URL of the page ("Red, then yellow at a new URL"). Neither touches the
 * main frame's DOM.
 */
const FRAMED_PAGE = `<!doctype html><title>framed</title>
<body style="margin:0">
<iframe srcdoc="<body style='margin:0;background:rgb(0,128,0)'></body>" style="position:fixed;inset:0;width:100%;height:100%;border:0"></iframe>
<div style="position:relative;z-index:1;padding:8px">
  <button onclick="paint('rgb(255,0,0)');fetch('/ping');setTimeout(()=>paint('rgb(255,255,0)'),40)">Red, then yellow with a request</button>
  <button onclick="paint('rgb(255,0,0)');setTimeout(()=>{history.pushState({},'','/framed/next');paint('rgb(255,255,0)')},40)">Red, then yellow at a new URL</button>
</div>
<script>function paint(c) { frames[0].document.body.style.background = c; }</script>`;

let server: Server | undefined;
let origin = "";
let url = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/ping") return void res.end("pong");
    res.writeHead(200, { "content-type": "text/html" });
    res.end(req.url === "/framed" ? FRAMED_PAGE : BOX_PAGE);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${origin}/box`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const button = (name: string) => target({ kind: "role", value: "button", name });

/** The colour at the middle of a stored JPEG, decoded by Chromium itself (a canvas in a page). */
async function pixelOf(jpeg: Buffer): Promise<number[]> {
  const lease = await suite.host.acquire("evidence-pixels");
  try {
    const src = `data:image/jpeg;base64,${jpeg.toString("base64")}`;
    const answer: unknown = await lease.page.evaluate(`(async () => {
      const img = new Image();
      img.src = ${JSON.stringify(src)};
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.width;
      canvas.height = img.height;
      const g = canvas.getContext("2d");
      g.drawImage(img, 0, 0);
      return Array.from(g.getImageData(img.width / 2, img.height / 2, 1, 1).data.slice(0, 3));
    })()`);
    return z.array(z.number()).parse(answer);
  } finally {
    await lease.release();
  }
}

function expectColour(actual: number[], expected: number[], what: string): void {
  // JPEG at quality 70 is lossy: near enough on every channel.
  const far = actual.some((v, i) => Math.abs(v - (expected[i] ?? 0)) > 40);
  expect(far, `${what}: ${JSON.stringify(actual)}, expected about ${JSON.stringify(expected)}`).toBe(false);
}

async function colours(engine: RunsEngine, run: Run): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const ev of (await engine.listEvidence(run.id)).items) {
    for (const shot of ev.screenshots) {
      const { bytes } = await engine.readScreenshot(run.id, ev.id, shot.name);
      out.set(`${ev.step_id}.${shot.name}`, await pixelOf(bytes));
    }
  }
  return out;
}

describe("evidence shows the page as each step ended (real Chromium)", { timeout: 90_000 }, () => {
  it("an after-screenshot is taken before the next step acts, and stays the next step's before", async () => {
    const { engine } = await suite.engineWith();
    const flow = await engine.createFlow({
      name: "box",
      steps: [
        { id: "open", type: "navigate", url },
        { id: "red", type: "click", target: button("Red") },
        // No wait for late requests after an assert: its capture overlaps only the commit.
        { id: "check", type: "assert", url: "/box" },
        // Its hover, the first thing the click does, paints the box blue.
        { id: "blue", type: "click", target: button("Blue") },
        { id: "red_again", type: "click", target: button("Red") },
        // Its focus, the first thing typing does, paints the box blue.
        { id: "note", type: "type", target: target({ kind: "label", value: "Note" }), value: "hi" },
        { id: "last", type: "click", target: button("Red") },
      ] as never,
    });
    const run = await engine.createRun({ flow_id: flow.id });
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running",
      30_000,
    );
    expect(done.status, done.error ?? "").toBe("success");
    const seen = await colours(engine, done);
    expectColour(seen.get("open.after") ?? [], GREEN, "open.after");
    expectColour(seen.get("red.after") ?? [], RED, "red.after");
    expectColour(seen.get("check.after") ?? [], RED, "check.after");
    expectColour(seen.get("blue.before") ?? [], RED, "blue.before");
    expectColour(seen.get("blue.after") ?? [], BLUE, "blue.after");
    expectColour(seen.get("red_again.after") ?? [], RED, "red_again.after");
    expectColour(seen.get("note.before") ?? [], RED, "note.before");
    expectColour(seen.get("note.after") ?? [], BLUE, "note.after");
    // The last step's evidence is there too, its file written before the run ended.
    expectColour(seen.get("last.after") ?? [], RED, "last.after");
  });

  it("a page that changes by itself while the step waits for late requests is shown as the wait left it", async () => {
    const { engine } = await suite.engineWith();
    const flow = await engine.createFlow({
      name: "box-late",
      steps: [
        { id: "open", type: "navigate", url },
        { id: "late", type: "click", target: button("Red, then yellow") },
        { id: "gate", type: "approval_gate", prompt: "Look at the box" },
      ] as never,
    });
    const run = await engine.createRun({ flow_id: flow.id });
    const paused = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running",
      30_000,
    );
    expect(paused.status, paused.error ?? "").toBe("waiting_user");
    // A run paused at a gate has its last step's evidence, file included.
    const seen = await colours(engine, paused);
    expectColour(seen.get("late.after") ?? [], YELLOW, "late.after");
    await engine.cancelRun(run.id);
  });

  it("a change the main frame's DOM does not show, with a request or a new URL during the wait, is shown too", async () => {
    const { engine } = await suite.engineWith();
    const flow = await engine.createFlow({
      name: "framed-late",
      steps: [
        { id: "open", type: "navigate", url: `${origin}/framed` },
        { id: "by_fetch", type: "click", target: button("Red, then yellow with a request") },
        { id: "reopen", type: "navigate", url: `${origin}/framed` },
        { id: "by_url", type: "click", target: button("Red, then yellow at a new URL") },
      ] as never,
    });
    const run = await engine.createRun({ flow_id: flow.id });
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running",
      30_000,
    );
    expect(done.status, done.error ?? "").toBe("success");
    const seen = await colours(engine, done);
    expectColour(seen.get("open.after") ?? [], GREEN, "open.after");
    expectColour(seen.get("by_fetch.after") ?? [], YELLOW, "by_fetch.after");
    expectColour(seen.get("by_url.after") ?? [], YELLOW, "by_url.after");
  });
});
