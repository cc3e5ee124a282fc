import {
  type AriaNode,
  CLICKABLE_ROLES,
  findNode,
  SELECTABLE_ROLES,
  TYPABLE_ROLES,
} from "./aria-snapshot.js";
import type { ActionName } from "./risk.js";

/*
 * The local computer-use planner: a small instruction grammar resolved against the live page's
 * accessibility tree. Pure and deterministic: no network, no model.
 */

/** The grammar the local planner understands, as people read it. */
export const INSTRUCTION_GRAMMAR = [
  "open <url>",
  "click <name>",
  "type <text> into <field>",
  "select <option> in <field>",
  "press <key>",
  "scroll down",
  "scroll up",
] as const;

/** An action a planner proposes, before risk is classified. */
export interface PlannedAction {
  name: ActionName;
  args: Record<string, unknown>;
  rationale: string;
  /** The accessible name of the element acted on, when there is one. */
  targetName?: string;
  /** The URL of the frame the action acts in. */
  frameUrl?: string;
}

/** A plan, or why there is none. */
export type PlanResult = { ok: true; action: PlannedAction } | { ok: false; message: string };

/** What a planner sees: the instruction, the page's URL and its accessibility tree. */
export interface PlanInput {
  instruction: string;
  pageUrl: string;
  nodes: readonly AriaNode[];
}

function unquote(s: string): string {
  const t = s.trim();
  const q = /^(["'“”‘’])(.*)\1$/s.exec(t) ?? /^[“‘](.*)[”’]$/s.exec(t);
  if (q === null) return t;
  return (q.length === 3 ? q[2] : q[1]) ?? t;
}

/** Drops a trailing "button"/"link"/"field"/"box" and a leading "the" from a spoken name. */
function bareName(s: string, suffixes: RegExp): string {
  const t = s.trim().replace(/^the\s+/i, "");
  const quoted = unquote(t);
  if (quoted !== t) return quoted;
  return unquote(t.replace(suffixes, "").trim());
}

/** The grammar's message for an instruction it cannot read. */
export function grammarMessage(instruction: string): string {
  return `The instruction "${instruction.slice(0, 200)}" is not one the local planner understands; use one of: ${INSTRUCTION_GRAMMAR.map((g) => `"${g}"`).join(", ")}.`;
}

function names(nodes: readonly AriaNode[], roles: readonly string[]): string {
  const found = nodes.filter((n) => roles.includes(n.role) && n.name.length > 0).map((n) => `"${n.name}"`);
  return found.length === 0 ? "none" : [...new Set(found)].slice(0, 20).join(", ");
}

function openUrl(raw: string): PlanResult {
  const text = unquote(raw);
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, message: `"${text}" is not a URL; "open <url>" takes an http(s) URL.` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, message: `Only http(s) URLs can be opened, not ${url.protocol}` };
  }
  return {
    ok: true,
    action: { name: "open", args: { url: url.href }, rationale: `Open ${url.href}.`, frameUrl: url.href },
  };
}

function onNode(
  nodes: readonly AriaNode[],
  roles: readonly string[],
  name: string,
  what: string,
): { ok: true; node: AriaNode } | { ok: false; message: string } {
  const node = findNode(nodes, roles, name);
  if (node !== undefined) return { ok: true, node };
  return {
    ok: false,
    message: `No ${what} named "${name}" on the page (${what}s there: ${names(nodes, roles)}).`,
  };
}

function click(nodes: readonly AriaNode[], raw: string): PlanResult {
  const name = bareName(raw, /\s+(button|link|tab|checkbox)$/i);
  const found = onNode(nodes, CLICKABLE_ROLES, name, "button or link");
  if (!found.ok) return found;
  const { node } = found;
  return {
    ok: true,
    action: {
      name: "click",
      args: { role: node.role, name: node.name, frame_index: node.frameIndex },
      rationale: `Click the ${node.role} "${node.name}".`,
      targetName: node.name,
      frameUrl: node.frameUrl,
    },
  };
}

function typeInto(nodes: readonly AriaNode[], rawText: string, rawField: string): PlanResult {
  const field = bareName(rawField, /\s+(field|box|input|textbox)$/i);
  const found = onNode(nodes, TYPABLE_ROLES, field, "text field");
  if (!found.ok) return found;
  const { node } = found;
  const text = unquote(rawText);
  return {
    ok: true,
    action: {
      name: "type",
      args: { role: node.role, field: node.name, text, frame_index: node.frameIndex },
      rationale: `Type into the ${node.role} "${node.name}".`,
      targetName: node.name,
      frameUrl: node.frameUrl,
    },
  };
}

function selectIn(nodes: readonly AriaNode[], rawOption: string, rawField: string): PlanResult {
  const field = bareName(rawField, /\s+(field|list|menu|dropdown)$/i);
  const found = onNode(nodes, SELECTABLE_ROLES, field, "list");
  if (!found.ok) return found;
  const { node } = found;
  const option = unquote(rawOption);
  return {
    ok: true,
    action: {
      name: "select",
      args: { role: node.role, field: node.name, option, frame_index: node.frameIndex },
      rationale: `Choose "${option}" in the ${node.role} "${node.name}".`,
      targetName: node.name,
      frameUrl: node.frameUrl,
    },
  };
}

const KEY =
  /^(?:[A-Za-z]+\+)*(?:[A-Za-z0-9]|Enter|Tab|Escape|Backspace|Delete|Space|Home|End|PageUp|PageDown|Arrow(?:Up|Down|Left|Right)|F[1-9][0-2]?)$/;

function press(raw: string, pageUrl: string): PlanResult {
  const key = unquote(raw)
    .replace(/^(the\s+)?/i, "")
    .replace(/\s+key$/i, "");
  const normalized = key.length === 1 ? key : key.charAt(0).toUpperCase() + key.slice(1);
  if (!KEY.test(normalized))
    return { ok: false, message: `"${key}" is not a key name (Enter, Tab, Escape, ArrowDown…).` };
  return {
    ok: true,
    action: {
      name: "press",
      args: { key: normalized },
      rationale: `Press ${normalized}.`,
      frameUrl: pageUrl,
    },
  };
}

/** The grammar's rules, tried in order: a pattern and how its captures become a plan. */
const RULES: ReadonlyArray<{ pattern: RegExp; plan(a: string, b: string, input: PlanInput): PlanResult }> = [
  { pattern: /^(?:open|go\s+to|navigate\s+to|visit)\s+(.+)$/i, plan: (a) => openUrl(a) },
  {
    pattern: /^(?:type|enter|fill\s+in)\s+(.+?)\s+(?:into|in)\s+(.+)$/i,
    plan: (a, b, input) => typeInto(input.nodes, a, b),
  },
  {
    pattern: /^(?:select|choose|pick)\s+(.+?)\s+(?:in|from)\s+(.+)$/i,
    plan: (a, b, input) => selectIn(input.nodes, a, b),
  },
  { pattern: /^(?:click(?:\s+on)?|tap)\s+(.+)$/i, plan: (a, _b, input) => click(input.nodes, a) },
  { pattern: /^press\s+(.+)$/i, plan: (a, _b, input) => press(a, input.pageUrl) },
  { pattern: /^scroll\s+(down|up)$/i, plan: (a, _b, input) => scroll(a, input.pageUrl) },
];

function scroll(raw: string, pageUrl: string): PlanResult {
  const direction = raw.toLowerCase();
  return {
    ok: true,
    action: {
      name: "scroll",
      args: { direction, pixels: 600 },
      rationale: `Scroll ${direction}.`,
      frameUrl: pageUrl,
    },
  };
}

/**
 * Plans one action for `instruction` on the page: `open <url>`, `click <name>` (a button, link or other
 * clickable node of that accessible name), `type <text> into <field>`, `select <option> in <field>`,
 * `press <key>`, `scroll down|up`. Names match exactly (ignoring case), else by a unique prefix or
 * substring. An instruction outside the grammar, or naming nothing on the page, is not planned.
 */
export function planLocally(input: PlanInput): PlanResult {
  const text = input.instruction.trim().replace(/[.!]+$/, "");
  for (const rule of RULES) {
    const m = rule.pattern.exec(text);
    if (m !== null) return rule.plan(m[1] ?? "", m[2] ?? "", input);
  }
  return { ok: false, message: grammarMessage(input.instruction) };
}

/** The tools an OpenAI-compatible planner may call, one per grammar verb, with their string arguments. */
export const PLANNER_TOOLS = {
  open: ["url"],
  click: ["name"],
  type: ["text", "field"],
  select: ["option", "field"],
  press: ["key"],
  scroll: ["direction"],
} as const;

/**
 * Resolves a planner's tool call (`click {name}`, `type {text, field}`…) against the page exactly as the
 * local grammar would, so a model only names things and the accessibility tree decides what they are.
 */
export function resolveToolCall(tool: string, args: Record<string, unknown>, input: PlanInput): PlanResult {
  const str = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : "");
  switch (tool) {
    case "open":
      return openUrl(str("url"));
    case "click":
      return click(input.nodes, str("name"));
    case "type":
      return typeInto(input.nodes, str("text"), str("field"));
    case "select":
      return selectIn(input.nodes, str("option"), str("field"));
    case "press":
      return press(str("key"), input.pageUrl);
    case "scroll":
      return /^(up|down)$/i.test(str("direction"))
        ? scroll(str("direction"), input.pageUrl)
        : { ok: false, message: 'scroll takes direction "up" or "down".' };
    default:
      return { ok: false, message: `The planner called an unknown tool "${tool.slice(0, 50)}".` };
  }
}
