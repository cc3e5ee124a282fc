import type { ReviewRowFacts } from "../domain/review-row.js";

let counter = 0;

/** A pending manifest row with sensible defaults, for pure tests of review logic. */
export function buildRow(overrides: Partial<ReviewRowFacts> & { source_path: string }): ReviewRowFacts {
  counter += 1;
  return {
    row_id: `row_${String(counter).padStart(6, "0")}`,
    target_path: `/out/documents/2024/${overrides.source_path.split("/").at(-1) ?? "x"}`,
    size: 1000,
    mtime: Date.UTC(2024, 2, 9, 12),
    sha256: "0".repeat(64),
    mime: "application/pdf",
    category: "documents",
    confidence: 0.9,
    action: "move",
    review_bucket: "auto_safe",
    reason_codes: [],
    status: "pending",
    edited: false,
    error: null,
    has_conflict: false,
    date: Date.UTC(2024, 2, 9, 12),
    date_source: "mtime",
    unit: null,
    meta: null,
    ...overrides,
  };
}
