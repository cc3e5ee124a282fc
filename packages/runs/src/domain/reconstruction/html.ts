import { type DefaultTreeAdapterMap, parse } from "parse5";

/*
 * What reconstruction reads from an HTML page: its static forms and fields (with the selector candidates a
 * browser step needs), its scripts, and markers of challenges. Parsed with parse5; pure.
 */

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

/** A form field (or a submit button) found in the page's static markup. */
export interface HtmlControl {
  tag: string;
  type: string;
  name: string | undefined;
  id: string | undefined;
  label: string | undefined;
  autocomplete: string | undefined;
  testId: string | undefined;
  text: string;
  /** The index of the form it belongs to (in document order), or -1. */
  form: number;
}

/** A summary of an HTML page. */
export interface HtmlSummary {
  title: string;
  forms: number;
  controls: HtmlControl[];
  /** Inline script text (joined) and the number of scripts (inline or not). */
  scriptText: string;
  scripts: number;
  /** The page's visible text, lower case, whitespace collapsed (at most 20 000 characters). */
  text: string;
  /** iframe and script `src` URLs. */
  sources: string[];
  /** Every `class` and `id` value (for challenge widgets such as `g-recaptcha`). */
  markers: string[];
}

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

/** True when the page's scripts build form controls (createElement or markup assigned in script). */
export function buildsFormInScript(s: HtmlSummary): boolean {
  return (
    /createElement\(\s*["'`](form|input|select|textarea|button)["'`]\s*\)/.test(s.scriptText) ||
    /(innerHTML|insertAdjacentHTML|outerHTML)[^;]*<(form|input|select|textarea|button)\b/i.test(s.scriptText)
  );
}
