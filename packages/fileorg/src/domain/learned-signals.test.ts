import { describe, expect, it } from "vitest";
import { buildRow } from "../tests/row-builder.js";
import {
  boostConfidence,
  type LearnedRule,
  outcomesOfEdit,
  signalsOf,
  strengthOf,
  suggestFor,
} from "./learned-signals.js";

const learned = (
  kind: LearnedRule["signal_kind"],
  value: string,
  outcome: string,
  count: number,
): LearnedRule => ({
  id: `${kind}:${value}:${outcome}`,
  signal_kind: kind,
  signal_value: value,
  outcome_field: "category",
  outcome_value: outcome,
  count,
  job_count: 1,
});

describe("learned signals", () => {
  it("extracts name tokens, the source folder, the extension and the MIME type", () => {
    expect(
      signalsOf({ source_path: "/home/me/Scans/Invoice_ACME-2024.pdf", mime: "application/pdf" }),
    ).toEqual([
      { kind: "token", value: "invoice" },
      { kind: "token", value: "acme" },
      { kind: "folder", value: "scans" },
      { kind: "extension", value: ".pdf" },
      { kind: "mime", value: "application/pdf" },
    ]);
  });

  it("learns a category change and a target folder change, relative to the output root", () => {
    expect(
      outcomesOfEdit(
        { category: "documents", target_path: "/out/documents/2024/a.pdf" },
        { category: "receipts", target_path: "/out/money/receipts/a.pdf" },
        "/out",
      ),
    ).toEqual([
      { field: "category", value: "receipts" },
      { field: "target_dir", value: "money/receipts" },
    ]);
  });

  it("grows strength with count and agreement", () => {
    expect(strengthOf({ count: 1 }, 1)).toBe(0.5);
    expect(strengthOf({ count: 3 }, 3)).toBe(0.875);
    expect(strengthOf({ count: 3 }, 6)).toBeCloseTo(0.4375);
  });

  it("suggests from a specific signal after two edits but not from a generic one alone", () => {
    const rules = [learned("token", "invoice", "receipts", 3), learned("extension", ".pdf", "receipts", 3)];
    const invoice = buildRow({ source_path: "/in/invoice-77.pdf" });
    const report = buildRow({ source_path: "/in/report.pdf" });
    const [s] = suggestFor(invoice, rules, "/out");
    expect(s).toMatchObject({ field: "category", value: "receipts", agrees: false });
    expect(s?.because).toEqual(["token:invoice"]);
    expect(suggestFor(report, rules, "/out")).toEqual([]);
  });

  it("raises confidence only for agreeing suggestions", () => {
    expect(
      boostConfidence(0.5, [{ field: "category", value: "x", score: 1, agrees: true, because: [] }]),
    ).toBe(0.75);
    expect(
      boostConfidence(0.5, [{ field: "category", value: "x", score: 1, agrees: false, because: [] }]),
    ).toBe(0.5);
  });
});
