import { z } from "zod";
import { type ManifestRow, REVIEW_BUCKETS } from "./manifest.js";

/** Zod schema of a review bucket (the buckets are the manifest's). */
export const ReviewBucketEnum = z.enum(REVIEW_BUCKETS);

/**
 * The manifest row as review sees it: exactly the fields of the analyze manifest (snake_case, as in the
 * HTTP contract). Review reads these and proposes field-level changes; it never moves a file.
 */
export type ReviewRow = Omit<
  ManifestRow,
  "job_id" | "conflict_ids" | "category" | "reason_codes" | "applied_rules"
> & {
  /** Open-ended here: rules may test any category name. */
  category: string;
  reason_codes: readonly string[];
};

/** Facts about a row that live outside the row itself but that rules and priorities may look at. */
export interface ReviewRowContext {
  /** Whether any conflict involving the row is still open. */
  has_conflict: boolean;
  /**
   * The row's place in a group of files with the same content (a `duplicate_content` conflict, open or
   * resolved): the group's `original` or a `copy`; absent when it is in none (or where groups are not known
   * yet: rules at analyze).
   */
  duplicate?: "original" | "copy" | undefined;
  /** The text excerpt of a text file (loaded only when a rule tests it); absent: none. */
  text?: string | undefined;
}

/** A row together with its context: what conditions are evaluated against. */
export type ReviewRowFacts = ReviewRow & ReviewRowContext;

/** The lowercase extension of a path including the dot (`.pdf`), or `""` when there is none. */
export function extensionOf(path: string): string {
  const base = basenameOf(path);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot).toLowerCase();
}

/** The last segment of a `/`- or `\`-separated path. */
export function basenameOf(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, "");
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return cut === -1 ? trimmed : trimmed.slice(cut + 1);
}

/** Everything before the last segment of a path (`""` for a bare name). */
export function dirnameOf(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, "");
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return cut <= 0 ? (cut === 0 ? "/" : "") : trimmed.slice(0, cut);
}

/** The file name without its extension. */
export function stemOf(path: string): string {
  const base = basenameOf(path);
  const ext = extensionOf(base);
  return ext === "" ? base : base.slice(0, base.length - ext.length);
}

/** Lowercase word tokens of a file name (letters, at least 3 long; digits-only parts dropped). */
export function nameTokensOf(path: string): string[] {
  const parts = stemOf(path)
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u);
  const out = new Set<string>();
  for (const p of parts) {
    if (p.length >= 3 && !/^\p{N}+$/u.test(p)) out.add(p);
  }
  return [...out];
}
