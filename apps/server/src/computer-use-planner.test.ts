import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

/** A stand-in for an OpenAI-compatible chat-completions endpoint (an external service) on 127.0.0.1. */
let chat: Server;
const asked: Array<{ auth: string | undefined; body: Record<string, unknown> }> = [];
let reply: unknown;
let site: TestSite;
let t: TestApp;

beforeAll(async () => {
  chat = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      asked.push({ auth: req.headers.authorization, body: JSON.parse(text) as Record<string, unknown> });
      res.setHeader("Content-Type", "application/json");
      if (reply === "fail") res.statusCode = 500;
      res.end(JSON.stringify(reply));
    });
  });
  chat.listen(0, "127.0.0.1");
  await once(chat, "listening");
  site = await startTestSite();
  const url = `http://127.0.0.1:${(chat.address() as AddressInfo).port}/v1`;
  t = await createTestApp(
    {},
    { protectedDomains: [site.payHost] },
    {},
    { planner: { url, model: "tiny", apiKey: "sk-test" } },
  );
}, 60_000);

afterAll(async () => {
  await t.close();
  await site.close();
  chat.close();
});

async function post(path: string, body: unknown) {
  const res = await t.app.request(path, {
    method: "POST",
    headers: { ...LOCAL, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as Record<string, unknown> & { error?: { code: string } },
  };
}

function toolCall(name: string, args: Record<string, string>, content: string | null = null) {
  return {
    choices: [
      {
        message: {
          role: "assistant",
          content,
          tool_calls: [{ type: "function", function: { name, arguments: JSON.stringify(args) } }],
        },
      },
    ],
  };
}

const PNG_1x1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("computer use with an OpenAI-compatible planner", { timeout: 60_000 }, () => {
  it("proposes the tool call the model made, resolved against the page, with the engine's risk", async () => {
    const session = await post("/api/sessions/start", { start_url: `${site.url}/login` });
    const cus = await post("/api/computer-use/sessions", {
      instruction: "log me in",
      session_id: session.json.id,
      planner: "openai",
    });
    expect(cus.status).toBe(201);
    reply = toolCall("click", { name: "sign in" }, "The Sign in button submits the form.");
    const action = await post(`/api/computer-use/sessions/${String(cus.json.id)}/preview`, {
      screenshot_base64: `data:image/png;base64,${PNG_1x1}`,
    });
    expect(action).toMatchObject({
      status: 200,
      json: {
        name: "click",
        args: { role: "button", name: "Sign in" },
        risk_level: "medium",
        rationale: "The Sign in button submits the form.",
      },
    });
    const request = asked.at(-1);
    expect(request?.auth).toBe("Bearer sk-test");
    expect(request?.body).toMatchObject({ model: "tiny", tool_choice: "required" });
    expect(JSON.stringify(request?.body.messages)).toContain('button \\"Sign in\\"');
    expect(JSON.stringify(request?.body.messages)).toContain(PNG_1x1);
    const tools = (request?.body.tools ?? []) as Array<{ function: { name: string } }>;
    expect(tools.map((x) => x.function.name)).toEqual(["open", "click", "type", "select", "press", "scroll"]);

    reply = toolCall("click", { name: "Transfer everything" });
    const nothing = await post(`/api/computer-use/sessions/${String(cus.json.id)}/preview`, {});
    expect(nothing).toMatchObject({ status: 422, json: { error: { code: "INSTRUCTION_NOT_UNDERSTOOD" } } });
    reply = { choices: [] };
    expect(await post(`/api/computer-use/sessions/${String(cus.json.id)}/preview`, {})).toMatchObject({
      status: 422,
    });
    reply = "fail";
    const broken = await post(`/api/computer-use/sessions/${String(cus.json.id)}/preview`, {});
    expect(broken).toMatchObject({ status: 502, json: { error: { code: "PLANNER_FAILED" } } });
  });

  it("checks the preview's screenshot: an image/* type, base64, at most 8 MiB", async () => {
    const cus = await post("/api/computer-use/sessions", { instruction: "scroll down" });
    const id = String(cus.json.id);
    expect(
      await post(`/api/computer-use/sessions/${id}/preview`, {
        screenshot_base64: "aGVsbG8=",
        screenshot_mime_type: "text/plain",
      }),
    ).toMatchObject({
      status: 400,
      json: { error: { code: "SCREENSHOT_INVALID" } },
    });
    expect(
      await post(`/api/computer-use/sessions/${id}/preview`, {
        screenshot_base64: "@@@",
        screenshot_mime_type: "image/png",
      }),
    ).toMatchObject({
      status: 400,
    });
    const big = Buffer.alloc(8 * 1024 * 1024 + 1, 1).toString("base64");
    expect(
      await post(`/api/computer-use/sessions/${id}/preview`, {
        screenshot_base64: big,
        screenshot_mime_type: "image/png",
      }),
    ).toMatchObject({
      status: 413,
      json: { error: { code: "SCREENSHOT_TOO_LARGE" } },
    });
    const ok = await post(`/api/computer-use/sessions/${id}/preview`, {
      screenshot_base64: PNG_1x1,
      screenshot_mime_type: "image/png",
    });
    expect(ok).toMatchObject({ status: 200, json: { name: "scroll", risk_level: "low" } });
    const evidence = await t.app.request(`/api/computer-use/sessions/${id}/evidence`, { headers: LOCAL });
    const items = ((await evidence.json()) as { items: Array<{ id: string; bytes: number }> }).items;
    expect(items[0]?.bytes).toBe(Buffer.from(PNG_1x1, "base64").length);
    expect(await post("/api/computer-use/sessions", { instruction: "x", planner: "gpt" })).toMatchObject({
      status: 400,
    });
  });
});
