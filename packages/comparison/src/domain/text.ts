import type { Node as JsonNode, ParseError } from "jsonc-parser";
import { parse, parseTree, printParseErrorCode } from "jsonc-parser";
import { MAX_DOCUMENT_DEPTH } from "./depth.js";
import { type DuplicateKey, scanJsonText } from "./duplicate-keys.js";
import type { Issue, TextIssue, ValidationResult } from "./issues.js";
import { parsePointer } from "./issues.js";
import type { ComparisonDocument } from "./schema.js";
import { validate } from "./validate.js";

/** The outcome of validating a JSON text: the typed value, or every issue with its line and column. */
export type TextValidationResult =
  | { readonly ok: true; readonly value: ComparisonDocument }
  | { readonly ok: false; readonly issues: readonly TextIssue[] };

const SYNTAX_HINTS: Readonly<Record<string, string>> = {
  CommaExpected: "add a comma between the two entries",
  PropertyNameExpected: "remove the trailing comma or add the next key",
  ValueExpected: "remove the trailing comma or add the missing value",
  ColonExpected: "add a colon after the key",
  CloseBraceExpected: "close the object with }",
  CloseBracketExpected: "close the array with ]",
  EndOfFileExpected: "remove what follows the top-level value",
  InvalidCommentToken: "JSON allows no comments; remove it",
  UnexpectedEndOfString: "close the string with a double quote",
  InvalidSymbol: "keys and strings need double quotes",
};

/** Maps offsets of a text to 1-based lines and columns. */
class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.starts[low] ?? 0) + 1 };
  }
}

function childAt(node: JsonNode, token: string): JsonNode | undefined {
  if (node.type === "object") {
    for (const property of node.children ?? []) {
      if (property.children?.[0]?.value === token) return property.children[1];
    }
    return undefined;
  }
  if (node.type === "array" && /^(0|[1-9]\d*)$/.test(token)) return node.children?.[Number(token)];
  return undefined;
}

/** The offset an issue is reported at: its value, the key of an unknown key, or the nearest ancestor. */
function offsetOf(root: JsonNode | undefined, issue: Issue): number {
  if (root === undefined) return 0;
  let node = root;
  for (const token of parsePointer(issue.pointer)) {
    const child = childAt(node, token);
    if (child === undefined) return node.offset;
    node = child;
  }
  if (issue.code === "UNKNOWN_KEY" && node.parent?.type === "property") {
    return node.parent.children?.[0]?.offset ?? node.offset;
  }
  return node.offset;
}

/**
 * Adds a line and a column to each issue by finding its pointer in the JSON text it came from (also for
 * lint issues). A pointer that leads nowhere is reported at its nearest existing ancestor.
 */
export function locateIssues(text: string, issues: readonly Issue[]): TextIssue[] {
  if (issues.length === 0) return [];
  const root = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  const lines = new LineIndex(text);
  return issues.map((issue) => ({ ...issue, ...lines.position(offsetOf(root, issue)) }));
}

function syntaxIssue(text: string, error: unknown): TextIssue {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  const lines = new LineIndex(text);
  if (first === undefined) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      code: "INVALID_JSON",
      severity: "error",
      pointer: "",
      message: `The text is not valid JSON: ${reason}.`,
      params: { error: reason },
      line: 1,
      column: 1,
    };
  }
  const name = printParseErrorCode(first.error);
  const hint = SYNTAX_HINTS[name];
  const position = lines.position(first.offset);
  return {
    code: "INVALID_JSON",
    severity: "error",
    pointer: "",
    message:
      text.trim() === ""
        ? "The text is empty; a comparison document is a JSON object."
        : `The text is not valid JSON at line ${position.line}, column ${position.column}: ${name}${hint ? ` (${hint})` : ""}.`,
    params: { error: name, offset: first.offset },
    ...position,
  };
}

function nestingIssue(text: string, offset: number): TextIssue {
  const position = new LineIndex(text).position(offset);
  return {
    code: "NESTING_TOO_DEEP",
    severity: "error",
    pointer: "",
    message: `The text nests objects and arrays deeper than ${MAX_DOCUMENT_DEPTH} levels at line ${position.line}, column ${position.column}; a comparison document needs far fewer.`,
    params: { limit: MAX_DOCUMENT_DEPTH, offset },
    ...position,
  };
}

function duplicateKeyIssues(text: string, duplicates: readonly DuplicateKey[]): TextIssue[] {
  if (duplicates.length === 0) return [];
  const lines = new LineIndex(text);
  return duplicates.map(({ key, pointer, offset, firstOffset }) => {
    const first = lines.position(firstOffset);
    return {
      code: "DUPLICATE_KEY",
      severity: "error",
      pointer,
      message: `Key ${JSON.stringify(key)} is repeated in this object (first at line ${first.line}, column ${first.column}); JSON parsers silently keep only the last value, so remove or rename one of them.`,
      params: { key, firstLine: first.line, firstColumn: first.column, firstOffset, offset },
      ...lines.position(offset),
    };
  });
}

/** Issues ordered by line, then column; issues at one place keep their order (the sort is stable). */
export function sortIssuesByPosition<T extends TextIssue>(issues: readonly T[]): T[] {
  return [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
}

function withFile(issues: TextIssue[], file: string | undefined): TextIssue[] {
  return file === undefined ? issues : issues.map((issue) => ({ ...issue, file }));
}

/**
 * Parses and validates a JSON text. Every issue carries a line and a column; a syntax error is reported
 * as an `INVALID_JSON` issue at its position, and nesting deeper than {@link MAX_DOCUMENT_DEPTH} as a
 * `NESTING_TOO_DEEP` issue at the first bracket past the limit (found before anything parses the text).
 * A key written twice in one object is a `DUPLICATE_KEY` issue at the repeat, naming where the key first
 * was. Issues come sorted by position. When `filename` is given, each issue carries it as `file`.
 */
export function validateText(text: string, filename?: string): TextValidationResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const scan = scanJsonText(source, MAX_DOCUMENT_DEPTH);
  if (scan.tooDeepOffset !== undefined) {
    return { ok: false, issues: withFile([nestingIssue(source, scan.tooDeepOffset)], filename) };
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return { ok: false, issues: withFile([syntaxIssue(source, error)], filename) };
  }
  const duplicates = duplicateKeyIssues(source, scan.duplicates);
  const result: ValidationResult<ComparisonDocument> = validate(value);
  if (result.ok && duplicates.length === 0) return result;
  const located = result.ok ? [] : locateIssues(source, result.issues);
  return { ok: false, issues: withFile(sortIssuesByPosition([...duplicates, ...located]), filename) };
}
