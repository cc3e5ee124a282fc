import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema.js";
import { sharedSuggestions } from "./ReviewExtras.js";

type QueueRow = components["schemas"]["ReviewQueueRow"];
const row = (suggestions: QueueRow["suggestions"]) => ({ suggestions }) as QueueRow;
const cat = (value: string, agrees = false) => ({
  field: "category" as const,
  value,
  score: 0.8,
  agrees,
  because: ["token:invoice"],
});

describe("sharedSuggestions", () => {
  it("keeps only suggestions every row carries and the plan does not already follow", () => {
    const a = row([cat("spreadsheets"), cat("receipts"), cat("documents", true)]);
    const b = row([cat("spreadsheets"), cat("documents", true)]);
    expect(sharedSuggestions([a, b]).map((s) => s.value)).toEqual(["spreadsheets"]);
    expect(sharedSuggestions([a]).map((s) => s.value)).toEqual(["spreadsheets", "receipts"]);
    expect(sharedSuggestions([a, row([cat("spreadsheets", true)])])).toEqual([]);
    expect(sharedSuggestions([])).toEqual([]);
  });
});
