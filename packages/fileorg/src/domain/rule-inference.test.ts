import { describe, expect, it } from "vitest";
import { buildRow } from "../tests/row-builder.js";
import { draftRuleFromExamples } from "./rule-inference.js";

describe("draftRuleFromExamples", () => {
  const receipts = [
    "receipt-amazon-01.pdf",
    "Receipt_grocery.pdf",
    "uber receipt 03.pdf",
    "receipt-hotel.pdf",
  ].map((name) =>
    buildRow({
      source_path: `/in/scans/${name}`,
      category: "ebooks",
      target_path: `/out/ebooks/2024/${name}`,
      edited: true,
      size: 40_000,
    }),
  );
  const others = [
    buildRow({ source_path: "/in/scans/report.pdf", size: 40_000 }),
    buildRow({ source_path: "/in/other/receipt-old.pdf", size: 40_000 }),
    buildRow({ source_path: "/in/scans/receipt-photo.jpg", mime: "image/jpeg", size: 40_000 }),
  ];

  it("drafts a rule from three receipts that matches the fourth and nothing unrelated", () => {
    const examples = receipts.slice(0, 3);
    const result = draftRuleFromExamples(examples, [...receipts, ...others], "/out");
    expect(result.also_matches).toEqual([receipts[3]?.row_id]);
    expect(result.draft.conditions.all).toEqual(
      expect.arrayContaining([
        { field: "extension", in: [".pdf"] },
        { field: "name_glob", glob: "*receipt*" },
        { field: "path_glob", glob: "/in/scans/*" },
        { field: "mime", in: ["application/pdf"] },
      ]),
    );
    expect(result.draft.actions).toEqual([
      { type: "set_category", category: "ebooks" },
      { type: "set_target", template: "{category}/{yyyy}/{name}{ext}" },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("warns where the examples disagree", () => {
    const a = buildRow({ source_path: "/in/x/alpha.pdf", category: "ebooks", size: 10 });
    const b = buildRow({
      source_path: "/in/y/beta.jpg",
      mime: "image/jpeg",
      category: "images",
      size: 50_000_000,
    });
    const result = draftRuleFromExamples([a, b], [a, b], "/out");
    expect(result.warnings.join("\n")).toMatch(/different extensions/);
    expect(result.warnings.join("\n")).toMatch(/share no word/);
    expect(result.warnings.join("\n")).toMatch(/different folders/);
    expect(result.warnings.join("\n")).toMatch(/unrelated MIME types/);
    expect(result.warnings.join("\n")).toMatch(/different size bands/);
    expect(result.warnings.join("\n")).toMatch(/different categories/);
  });
});
