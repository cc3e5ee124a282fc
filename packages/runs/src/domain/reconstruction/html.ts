/*
 * What reconstruction reads from an HTML page: its static forms and fields (with the selector candidates a
 * browser step needs), its scripts, and markers of challenges. `html-parse.ts` reads a page into this shape
 * with parse5; pure.
 */

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

/** True when the page's scripts build form controls (createElement or markup assigned in script). */
export function buildsFormInScript(s: HtmlSummary): boolean {
  return (
    /createElement\(\s*["'`](form|input|select|textarea|button)["'`]\s*\)/.test(s.scriptText) ||
    /(innerHTML|insertAdjacentHTML|outerHTML)[^;]*<(form|input|select|textarea|button)\b/i.test(s.scriptText)
  );
}
