import { summarizeNodes } from "../../domain/aria-snapshot.js";
import {
  INSTRUCTION_GRAMMAR,
  PLANNER_TOOLS,
  type PlanResult,
  resolveToolCall,
} from "../../domain/cu-grammar.js";
import { PlannerError } from "../../kernel/lane-errors.js";
import type { Planner, PlannerRequest } from "./planner.js";

/** Where an OpenAI-compatible planner is (`VETTED_CU_PLANNER_URL`, `_MODEL`, `_API_KEY`). */
export interface OpenAiPlannerOptions {
  /** The API base (`…/v1`) or the full `…/chat/completions` URL. */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** How long one completion may take (default 30 000 ms). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/chat/completions") ? trimmed : `${trimmed}/chat/completions`;
}

/** The tool definitions sent to the model: one function per grammar verb. */
function toolDefinitions() {
  return Object.entries(PLANNER_TOOLS).map(([name, params]) => ({
    type: "function",
    function: {
      name,
      description: `The "${INSTRUCTION_GRAMMAR.find((g) => g.startsWith(name)) ?? name}" action`,
      parameters: {
        type: "object",
        properties: Object.fromEntries(params.map((p) => [p, { type: "string" }])),
        required: [...params],
        additionalProperties: false,
      },
    },
  }));
}

interface ChatAnswer {
  choices?: Array<{
    message?: {
      content?: string | null;
      tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
    };
  }>;
}

async function ask(options: OpenAiPlannerOptions, request: PlannerRequest): Promise<ChatAnswer> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs ?? 30_000)]);
  const image = `data:${request.screenshot.mimeType};base64,${request.screenshot.data.toString("base64")}`;
  const body = {
    model: options.model,
    tool_choice: "required",
    tools: toolDefinitions(),
    messages: [
      {
        role: "system",
        content:
          "You operate a web page for a person. Call exactly one tool for the next action of their " +
          `instruction. Page: ${request.pageUrl}\nAccessibility tree (role "name"):\n${summarizeNodes(request.nodes, 6000)}`,
      },
      {
        role: "user",
        content: [
          { type: "text", text: request.instruction },
          { type: "image_url", image_url: { url: image } },
        ],
      },
    ],
  };
  let res: Response;
  try {
    res = await doFetch(completionsUrl(options.url), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` }),
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    throw new PlannerError(
      "PLANNER_FAILED",
      `The planner endpoint did not answer: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (!res.ok) throw new PlannerError("PLANNER_FAILED", `The planner endpoint answered HTTP ${res.status}.`);
  try {
    return (await res.json()) as ChatAnswer;
  } catch {
    throw new PlannerError("PLANNER_FAILED", "The planner endpoint answered something that is not JSON.");
  }
}

/**
 * A planner backed by an OpenAI-compatible chat-completions endpoint with tool calling: the model sees the
 * instruction, the page's accessibility tree and the screenshot, and calls one tool (`open`, `click`,
 * `type`, `select`, `press`, `scroll`); the call is resolved against the accessibility tree like the local
 * grammar, so the model only names things. Risk is classified by the engine, never by the model.
 */
export function createOpenAiPlanner(options: OpenAiPlannerOptions): Planner {
  return {
    async plan(request): Promise<PlanResult> {
      const answer = await ask(options, request);
      const message = answer.choices?.[0]?.message;
      const call = message?.tool_calls?.[0]?.function;
      if (call?.name === undefined) {
        return { ok: false, message: "The planner proposed no action for this instruction on this page." };
      }
      let args: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(call.arguments ?? "{}");
        args = parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
      } catch {
        throw new PlannerError("PLANNER_FAILED", "The planner's tool call arguments are not JSON.");
      }
      const resolved = resolveToolCall(call.name, args, request);
      if (!resolved.ok) return resolved;
      const why =
        typeof message?.content === "string" && message.content.trim() !== ""
          ? message.content.trim()
          : undefined;
      return {
        ok: true,
        action: { ...resolved.action, rationale: why?.slice(0, 1000) ?? resolved.action.rationale },
      };
    },
  };
}
