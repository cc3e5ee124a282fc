import { readFile } from "node:fs/promises";
import type { TextIssue } from "../domain/issues.js";
import type { ComparisonDocument } from "../domain/schema.js";
import { validateText } from "../domain/text.js";

/** A document read from disk: its text and the validation outcome, or why it could not be read. */
export type LoadedDocument =
  | {
      readonly status: "valid";
      readonly path: string;
      readonly text: string;
      readonly value: ComparisonDocument;
    }
  | {
      readonly status: "invalid";
      readonly path: string;
      readonly text: string;
      readonly issues: readonly TextIssue[];
    }
  | { readonly status: "unreadable"; readonly path: string; readonly reason: string };

/** Reads a JSON file and validates it; an unreadable file is a value (`status: "unreadable"`), not a throw. */
export async function loadDocument(path: string): Promise<LoadedDocument> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    return { status: "unreadable", path, reason };
  }
  const result = validateText(text, path);
  return result.ok
    ? { status: "valid", path, text, value: result.value }
    : { status: "invalid", path, text, issues: result.issues };
}
