/*
 * The live page's accessibility tree as Playwright's ARIA snapshot prints it (`- role "name" [attrs]`,
 * nested by indentation), parsed into flat nodes, and how an instruction's words are found in it. Pure.
 */

/** One node of an ARIA snapshot: its role, accessible name and the frame it lives in. */
export interface AriaNode {
  role: string;
  name: string;
  /** The URL of the frame the node is in (the main frame's URL for most). */
  frameUrl: string;
  /** 0 for the main frame, else the frame's index in the page's frame list. */
  frameIndex: number;
}

const LINE = /^\s*-\s+([a-z][a-z0-9]*)(?:\s+"((?:[^"\\]|\\.)*)")?/;
const TEXT_LINE = /^\s*-\s+text:\s*(.*)$/;

/** Parses one frame's ARIA snapshot into nodes (text lines become `text` nodes). */
export function parseAriaSnapshot(snapshot: string, frameUrl: string, frameIndex = 0): AriaNode[] {
  const nodes: AriaNode[] = [];
  for (const line of snapshot.split("\n")) {
    const text = TEXT_LINE.exec(line);
    if (text !== null) {
      nodes.push({ role: "text", name: unquote((text[1] ?? "").trim()), frameUrl, frameIndex });
      continue;
    }
    const m = LINE.exec(line);
    if (m === null) continue;
    nodes.push({ role: m[1] ?? "", name: unquote(m[2] ?? ""), frameUrl, frameIndex });
  }
  return nodes;
}

function unquote(s: string): string {
  const inner = s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1) : s;
  return inner.replace(/\\(.)/g, "$1");
}

/** Roles a person clicks. */
export const CLICKABLE_ROLES = [
  "button",
  "link",
  "checkbox",
  "radio",
  "tab",
  "menuitem",
  "option",
  "switch",
  "treeitem",
] as const;
/** Roles a person types into. */
export const TYPABLE_ROLES = ["textbox", "searchbox", "combobox", "spinbutton"] as const;
/** Roles a person picks an option in. */
export const SELECTABLE_ROLES = ["combobox", "listbox"] as const;

function fold(s: string): string {
  return s.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * The node of one of `roles` whose accessible name matches `name`: an exact (case-insensitive) match
 * first, else the only node whose name starts with it, else the only one containing it. Undefined when
 * none, or when the partial match is ambiguous.
 */
export function findNode(
  nodes: readonly AriaNode[],
  roles: readonly string[],
  name: string,
): AriaNode | undefined {
  const wanted = fold(name);
  if (wanted.length === 0) return undefined;
  const candidates = nodes.filter((n) => roles.includes(n.role));
  const exact = candidates.filter((n) => fold(n.name) === wanted);
  if (exact.length > 0) return exact[0];
  const starts = candidates.filter((n) => fold(n.name).startsWith(wanted));
  if (starts.length === 1) return starts[0];
  const contains = candidates.filter((n) => fold(n.name).includes(wanted));
  return contains.length === 1 ? contains[0] : undefined;
}

/** A short summary of the page for evidence: the first named nodes, one per line, at most `maxChars`. */
export function summarizeNodes(nodes: readonly AriaNode[], maxChars = 1500): string {
  const lines: string[] = [];
  let size = 0;
  for (const n of nodes) {
    if (n.name.length === 0) continue;
    const line = `${n.role} "${n.name}"`;
    if (size + line.length + 1 > maxChars) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}
