import { type DefaultTreeAdapterMap, parse } from "parse5";
import type { HtmlSummary } from "./html.js";

/*
 * Reads an HTML page into a {@link HtmlSummary} with parse5; pure. Kept apart from `html.ts` so parse5 is
 * loaded only when a page is read (reconstruction imports this module on first use).
 */

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

function attr(el: Element, name: string): string | undefined {
  return el.attrs.find((a) => a.name === name)?.value;
}

function isElement(node: Node): node is Element {
  return "tagName" in node;
}

function textOf(node: Node): string {
  if (node.nodeName === "#text" && "value" in node) return node.value;
  if (!("childNodes" in node)) return "";
  if (isElement(node) && (node.tagName === "script" || node.tagName === "style")) return "";
  return node.childNodes.map(textOf).join(" ");
}

interface Walk {
  summary: HtmlSummary;
  labels: Map<string, string>;
  formIndex: number;
}

function visitControl(w: Walk, el: Element): void {
  const tag = el.tagName;
  const type = (
    attr(el, "type") ?? (tag === "button" ? "submit" : tag === "input" ? "text" : tag)
  ).toLowerCase();
  if (tag === "input" && type === "hidden") return;
  w.summary.controls.push({
    tag,
    type,
    name: attr(el, "name"),
    id: attr(el, "id"),
    label: attr(el, "aria-label"),
    autocomplete: attr(el, "autocomplete"),
    testId: attr(el, "data-testid"),
    text: textOf(el).replace(/\s+/g, " ").trim(),
    form: w.formIndex,
  });
}

function visit(w: Walk, node: Node): void {
  if (isElement(node)) {
    const tag = node.tagName;
    const cls = attr(node, "class");
    const id = attr(node, "id");
    if (cls !== undefined) w.summary.markers.push(...cls.split(/\s+/).filter(Boolean));
    if (id !== undefined) w.summary.markers.push(id);
    const src = attr(node, "src");
    if (src !== undefined && (tag === "iframe" || tag === "script")) w.summary.sources.push(src);
    if (tag === "form") w.summary.forms += 1;
    if (tag === "script") {
      w.summary.scripts += 1;
      w.summary.scriptText += `${textOf({ ...node, tagName: "div" } as Element)}\n`;
    }
    if (tag === "title") w.summary.title = textOf(node).trim();
    if (tag === "label") {
      const target = attr(node, "for");
      if (target !== undefined) w.labels.set(target, textOf(node).replace(/\s+/g, " ").trim());
    }
    if (tag === "input" || tag === "textarea" || tag === "select" || tag === "button") visitControl(w, node);
  }
  const outer = w.formIndex;
  if (isElement(node) && node.tagName === "form") w.formIndex = w.summary.forms - 1;
  const children = "childNodes" in node ? node.childNodes : [];
  for (const child of children) visit(w, child);
  if (isElement(node) && node.tagName === "form") w.formIndex = outer;
}

/** Parses `html` into a {@link HtmlSummary}. Never throws: parse5 recovers from any markup. */
export function summarizeHtml(html: string): HtmlSummary {
  const doc = parse(html);
  const summary: HtmlSummary = {
    title: "",
    forms: 0,
    controls: [],
    scriptText: "",
    scripts: 0,
    text: textOf(doc).replace(/\s+/g, " ").trim().toLowerCase().slice(0, 20_000),
    sources: [],
    markers: [],
  };
  const w: Walk = { summary, labels: new Map(), formIndex: -1 };
  visit(w, doc);
  for (const c of summary.controls) {
    if (c.label === undefined && c.id !== undefined) c.label = w.labels.get(c.id);
  }
  return summary;
}
